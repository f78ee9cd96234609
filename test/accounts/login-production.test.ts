/** In production (SPEC §3, §4): Secure cookies and HSTS; outside production neither. */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';

const PRODUCTION = {
  NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://id.example.org',
  // Required by the configuration; the test app uses its own test database instead.
  DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', MAIL: 'off',
};

const production = useTestApp({ env: PRODUCTION });
const development = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(production.db);
});

describe('production', () => {
  it('marks the session and CSRF_TOKEN cookies Secure at login, and keeps HttpOnly on the session only', async () => {
    expect(production.config.isProduction).toBe(true);
    const response = await production.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password } });
    expect(response.statusCode).toBe(200);
    const session = response.cookies.find((c) => c.name === 'fs_session');
    const csrf = response.cookies.find((c) => c.name === 'CSRF_TOKEN');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(csrf).toMatchObject({ secure: true, sameSite: 'Lax', path: '/' });
    expect(csrf!.httpOnly).toBeFalsy();

    const cookie = `fs_session=${session!.value}`;
    const logout = await production.app.inject({ method: 'POST', url: '/api/user/logout', headers: { cookie, 'x-csrf-token': csrf!.value } });
    expect(logout.statusCode).toBe(204);
    for (const name of ['fs_session', 'CSRF_TOKEN']) expect(logout.cookies.find((c) => c.name === name)).toMatchObject({ value: '', secure: true });
  });

  it('sets a Secure CSRF_TOKEN cookie on the login page', async () => {
    const page = await production.app.inject({ url: '/login' });
    expect(page.statusCode).toBe(200);
    expect(page.cookies.find((c) => c.name === 'CSRF_TOKEN')).toMatchObject({ secure: true, sameSite: 'Lax' });
  });

  it('sends Strict-Transport-Security on pages and the API', async () => {
    for (const url of ['/login', '/health', '/api/user/current']) {
      const response = await production.app.inject({ url });
      expect(response.headers['strict-transport-security'], url).toBe('max-age=31536000; includeSubDomains');
    }
  });
});

describe('outside production', () => {
  it('sends neither Secure cookies nor HSTS (plain http://localhost must work)', async () => {
    const page = await development.app.inject({ url: '/login' });
    expect(page.headers['strict-transport-security']).toBeUndefined();
    expect(page.cookies.find((c) => c.name === 'CSRF_TOKEN')?.secure).toBeFalsy();
  });
});
