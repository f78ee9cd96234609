import { beforeAll, describe, expect, it } from 'vitest';
import { digestSessionId } from '../../src/accounts/sessions.ts';
import { makeRegion, makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { logInAs } from '../helpers/session.ts';

const t = useTestApp();
let user: TestUser;
let regionId: number;

beforeAll(async () => {
  regionId = await makeRegion(t.db);
  user = await makeUser(t.db, { role: 'store-manager', regionIds: [regionId], firstName: 'Greta', lastName: 'Gemüse' });
});

function login(payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'POST', url: '/api/user/login', payload: payload as object, headers });
}

describe('POST /api/user/login', () => {
  it('logs in, sets an HttpOnly session cookie and a readable CSRF cookie, and stores only a digest', async () => {
    const response = await login({ email: user.email.toUpperCase(), password: TEST_PASSWORD });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      id: user.id, email: user.email, firstName: 'Greta', lastName: 'Gemüse', photo: null, role: 2,
      verified: true, sleeping: false, regionIds: [regionId], ambassadorRegionIds: [], csrfToken: expect.any(String),
    });
    const session = response.cookies.find((c) => c.name === 'fs_session')!;
    const csrf = response.cookies.find((c) => c.name === 'CSRF_TOKEN')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(session.secure).toBeFalsy();
    expect(session.maxAge).toBeUndefined(); // no "stay logged in": ends with the browser
    expect(session.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect(csrf.httpOnly).toBeFalsy();
    expect(csrf.value).toBe(body.csrfToken);

    const rows = await t.db.selectFrom('sessions').selectAll().where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.id_digest).equals(digestSessionId(session.value))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(session.value);
    const hours = (rows[0]!.expires_at.getTime() - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
  });

  it('keeps a "stay logged in" session for 14 days', async () => {
    const response = await login({ email: user.email, password: TEST_PASSWORD, rememberMe: true });
    expect(response.statusCode).toBe(200);
    const session = response.cookies.find((c) => c.name === 'fs_session')!;
    expect(session.maxAge).toBeGreaterThan(14 * 86400 - 60);
    expect(session.maxAge).toBeLessThanOrEqual(14 * 86400);
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const wrongPassword = await login({ email: user.email, password: 'not the password' });
    const unknownEmail = await login({ email: 'nobody@example.test', password: 'not the password' });
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.cookies).toEqual([]);
    }
    expect(wrongPassword.json()).toEqual(unknownEmail.json());
    expect(wrongPassword.json()).toMatchObject({ status: 401, code: 'auth.invalid-credentials', detail: 'Wrong email or password.' });
  });

  it('answers an email with a NUL byte like any wrong credentials, not with a database error', async () => {
    const wrong = await login({ email: user.email, password: 'not the password' });
    for (const email of ['a\u0000b@example.org', `${user.email}\u0000`]) {
      const response = await login({ email, password: TEST_PASSWORD });
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toEqual(wrong.json());
      expect(response.cookies).toEqual([]);
    }
  });

  it('rejects malformed bodies with 400 and one entry per field', async () => {
    const response = await login({ email: '', password: 5, extra: true });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ status: 400, code: 'request.invalid' });
    expect(response.json().errors.length).toBeGreaterThanOrEqual(1);
    const notJson = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.headers['content-type']).toContain('application/problem+json');
  });
});

describe('GET /api/user/current and logout', () => {
  it('returns the user and the CSRF token, 401 when logged out', async () => {
    const anonymous = await t.app.inject({ url: '/api/user/current' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ status: 401, code: 'auth.unauthenticated' });

    const session = await logInAs(t.app, user);
    const current = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(current.statusCode).toBe(200);
    expect(current.json()).toMatchObject({ id: user.id, csrfToken: session.csrfToken });
  });

  it('logout deletes the session server-side and clears the cookies', async () => {
    const session = await logInAs(t.app, user);
    const before = await t.db.selectFrom('sessions').select('id_digest').where('user_id', '=', user.id).execute();
    const response = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
    expect(response.statusCode).toBe(204);
    expect(response.cookies.find((c) => c.name === 'fs_session')?.value).toBe('');
    const after = await t.db.selectFrom('sessions').select('id_digest').where('user_id', '=', user.id).execute();
    expect(after).toHaveLength(before.length - 1);
    const reuse = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(reuse.statusCode).toBe(401);
  });

  it('expires a session after its lifetime', async () => {
    const session = await logInAs(t.app, user);
    t.clock.advance(8 * 3600 + 1);
    const response = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(response.statusCode).toBe(401);
  });
});
