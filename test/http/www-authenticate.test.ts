/**
 * Every 401 carries a challenge (RFC 9110 §15.5.2): the pages and /api the
 * session cookie's (src/http/cookie-challenge.ts), the OAuth endpoints their
 * own — and the token endpoint none for a client that authenticated in the
 * form body (RFC 6749 §5.2).
 */
import { describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient, tokenRequest, CALLBACK } from '../helpers/oauth.ts';

const t = useTestApp();
const API = 'Cookie realm="foodsharing", form-action="/api/user/login", cookie-name="fs_session"';
const PAGES = 'Cookie realm="foodsharing", form-action="/login", cookie-name="fs_session"';

describe('a 401', () => {
  test('under /api names the session cookie and the API\'s login', async () => {
    const user = await makeUser(t.db);
    for (const answer of [
      await t.app.inject({ url: '/api/user/current' }),
      await t.app.inject({ url: '/api/user/current?x=1' }),
      await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: 'not the password' } }),
      await t.app.inject({ method: 'POST', url: '/api/baskets', payload: {} }),
      await t.app.inject({ url: '/%61pi/user/current' }), // the router decodes the path; so does the challenge
    ]) {
      expect(answer.statusCode).toBe(401);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.headers['www-authenticate']).toBe(API);
    }
  });

  test('of the JSON login for a member with a second factor names the page\'s login, where the second step is', async () => {
    const user = await makeUser(t.db);
    await t.db.insertInto('passkeys').values({
      user_id: user.id, credential_id: `challenge-${user.id}`, public_key: Buffer.from([1]), device_type: 'singleDevice', backed_up: false, name: 'Key',
    }).execute();
    const answer = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: user.email, password: user.password } });
    expect(answer.statusCode).toBe(401);
    expect(answer.json().code).toBe('auth.second-factor-required');
    expect(answer.headers['www-authenticate']).toBe(PAGES);
  });

  test('of a page or its scripts names the session cookie and the login page', async () => {
    const page = await t.app.inject({ url: '/login' });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const login = await t.app.inject({
      method: 'POST', url: '/login', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf_token: csrf, email: 'nobody@example.org', password: 'not the password' }).toString(),
    });
    expect(login.statusCode).toBe(401);
    expect(login.headers['www-authenticate']).toBe(PAGES);
    const passkeys = await t.app.inject({ method: 'POST', url: '/settings/security/passkeys/options', payload: {} });
    expect(passkeys.statusCode).toBe(401);
    expect(passkeys.headers['www-authenticate']).toBe(PAGES);
  });

  test('at the OAuth endpoints keeps their own challenges, and none for a client authenticated in the form', async () => {
    const userinfo = await t.app.inject({ url: '/oauth/userinfo' });
    expect(userinfo.statusCode).toBe(401);
    expect(userinfo.headers['www-authenticate']).toBe('Bearer');
    const client = await makeClient(t);
    const post = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: client.clientId, client_secret: 'wrong' });
    expect(post.statusCode).toBe(401);
    expect(post.headers['www-authenticate']).toBeUndefined();
    const encoded = await t.app.inject({
      method: 'POST', url: '/%6fauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: client.clientId, client_secret: 'wrong' }).toString(),
    });
    expect(encoded.statusCode).toBe(401);
    expect(encoded.headers['www-authenticate']).toBeUndefined();
  });
});
