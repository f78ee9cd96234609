/** Logging in through the real API, for tests that need a session. */
import type { FastifyInstance } from 'fastify';

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
