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
