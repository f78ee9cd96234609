/**
 * What a logout does to the tokens of the apps the session signed into
 * (docs/oauth.md, "Signing a member out"): an explicit logout (`POST
 * /logout`, `POST /api/user/logout`) revokes the grants issued under that
 * session, so its refresh tokens stop at once and introspection says
 * inactive; grants of the member's other sessions stay. A session that
 * expires, or that a new login replaces, keeps its grants.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { purgeExpiredSessions } from '../../src/accounts/sessions.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

let t: TestApp;
let registered: { clientId: string; secret: string };
beforeAll(async () => {
  t = await buildTestApp();
  registered = (await makeClient(t)) as { clientId: string; secret: string };
});
afterAll(() => t.close());

async function signedIn(user?: TestUser): Promise<{ session: TestSession; user: TestUser; refreshToken: string }> {
  const member = user ?? await makeUser(t.db);
  const session = await logInAs(t.app, member);
  const code = await obtainCode(t, { clientId: registered.clientId, cookie: session.cookie });
  const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: registered.clientId, client_secret: registered.secret });
  expect(response.statusCode).toBe(200);
  return { session, user: member, refreshToken: (response.json() as { refresh_token: string }).refresh_token };
}

const credentials = () => ({ client_id: registered.clientId, client_secret: registered.secret });
const refreshStatus = async (refreshToken: string) => (await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials() })).statusCode;
const introspect = async (token: string) => (await t.app.inject({
  method: 'POST', url: '/oauth/introspect', payload: new URLSearchParams({ token, ...credentials() }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
})).json() as { active: boolean };

describe('explicit logout revokes the grants of its session', () => {
  test('POST /api/user/logout: refresh fails, introspection says inactive; the member\'s other session keeps its grant', async () => {
    const first = await signedIn();
    const second = await signedIn(first.user);
    const response = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: first.session.headers });
    expect(response.statusCode).toBe(204);
    expect(await introspect(first.refreshToken)).toEqual({ active: false });
    expect(await refreshStatus(first.refreshToken)).toBe(400);
    expect(await introspect(second.refreshToken)).toMatchObject({ active: true });
    expect(await refreshStatus(second.refreshToken)).toBe(200);
  });

  test('POST /logout (the page\'s form) does the same', async () => {
    const { session, refreshToken } = await signedIn();
    const response = await t.app.inject({
      method: 'POST', url: '/logout', payload: new URLSearchParams({ csrf_token: session.csrfToken }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
    });
    expect(response.statusCode).toBe(303);
    expect(await introspect(refreshToken)).toEqual({ active: false });
  });
});

describe('what does not revoke', () => {
  test('a new login replacing the browser\'s session keeps the old session\'s grants', async () => {
    const { session, user, refreshToken } = await signedIn();
    const again = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password }, headers: { cookie: session.cookie } });
    expect(again.statusCode).toBe(200);
    expect(await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } }).then((r) => r.statusCode)).toBe(401);
    expect(await refreshStatus(refreshToken)).toBe(200);
  });

  test('an expired session, purged, keeps its grants', async () => {
    const { refreshToken } = await signedIn();
    t.clock.advance(9 * 3600);
    expect(await purgeExpiredSessions(t.db, t.clock.now)).toBeGreaterThan(0);
    expect(await refreshStatus(refreshToken)).toBe(200);
  });
});
