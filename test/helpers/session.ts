/** Logging in through the real API, for tests that need a session. */
import type { FastifyInstance } from 'fastify';
import type { AuthenticationMethod } from '../../src/accounts/authentication-methods.ts';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/accounts/session-http.ts';
import { createSession } from '../../src/accounts/sessions.ts';
import type { Clock } from '../../src/clock.ts';
import type { Executor } from '../../src/db/executor.ts';

export interface TestSession {
  /** Value for a `cookie` request header. */
  cookie: string;
  csrfToken: string;
  /** Headers for a state-changing `/api` request: cookie and X-CSRF-Token. */
  headers: Record<string, string>;
}

export async function logInAs(app: FastifyInstance, user: { email: string; password: string }, rememberMe = false): Promise<TestSession> {
  const response = await app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password, rememberMe } });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const csrfToken = (response.json() as { csrfToken: string }).csrfToken;
  return { cookie, csrfToken, headers: { cookie, 'x-csrf-token': csrfToken } };
}

/**
 * The session after a response that renewed its id (a second factor set up, a password changed): the
 * response's cookies over the old ones. Throws when the response renewed nothing.
 */
export function renewedSession(session: TestSession, response: { cookies: Array<{ name: string; value: string }> }): TestSession {
  const jar = new Map(session.cookie.split('; ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const));
  for (const { name, value } of response.cookies) jar.set(name, value);
  const csrfToken = jar.get('CSRF_TOKEN');
  if (csrfToken === undefined || csrfToken === session.csrfToken) throw new Error('the response renewed no session');
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  return { cookie, csrfToken, headers: { ...session.headers, cookie, 'x-csrf-token': csrfToken } };
}

/**
 * A session stored as a sign-in with `amr` would store it (a password and a one-time code, say), for tests of
 * what needs two factors that are not about how they were proved.
 */
export async function sessionSignedInWith(db: Executor, clock: Clock, userId: number, amr: readonly AuthenticationMethod[]): Promise<TestSession> {
  const created = await createSession(db, clock, userId, false, undefined, undefined, amr);
  const cookie = `${SESSION_COOKIE}=${created.id}; ${CSRF_COOKIE}=${created.csrfToken}`;
  return { cookie, csrfToken: created.csrfToken, headers: { cookie, 'x-csrf-token': created.csrfToken } };
}
