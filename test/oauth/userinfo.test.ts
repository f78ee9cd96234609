/**
 * Userinfo claims exactly per granted scope (seed table),
 * 401 + WWW-Authenticate for every bad token, and revocation (RFC 7009).
 */
import { generateKeyPair, importPKCS8, SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

type Registered = { clientId: string; secret: string };
type Tokens = { access_token: string; refresh_token: string; id_token: string };

const t = useTestApp();
let session: TestSession;
let client: Registered;
let userId: number;
let email: string;
let regions: number[];

beforeAll(async () => {
  regions = [await makeRegion(t.db), await makeRegion(t.db), await makeRegion(t.db)];
  const user = await makeUser(t.db, { firstName: 'Alma', lastName: 'Botschafter', regionIds: [regions[0]!, regions[1]!], ambassadorOf: [regions[2]!] });
  userId = user.id;
  email = user.email;
  await t.db.updateTable('users').set({ photo: '/uploads/alma.jpg' }).where('id', '=', userId).execute();
  session = await logInAs(t.app, user);
  client = (await makeClient(t)) as Registered;
});

async function tokensFor(scope: string, c: Registered = client): Promise<Tokens> {
  const code = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie, scope });
  return (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId, client_secret: c.secret })).json();
}

function userinfo(token: string | undefined, method: 'GET' | 'POST' = 'GET') {
  return t.app.inject({ method, url: '/oauth/userinfo', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

function revoke(token: string, c: Registered = client, hint?: string) {
  return t.app.inject({
    method: 'POST', url: '/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, client_id: c.clientId, client_secret: c.secret, ...(hint ? { token_type_hint: hint } : {}) }).toString(),
  });
}

describe('userinfo claims by scope', () => {
  test('each scope releases exactly its claims; sub equals the ID token sub', async () => {
    const sub = String(userId);
    const base = { sub, preferred_username: 'Alma' };
    const profile = { name: 'Alma Botschafter', given_name: 'Alma', family_name: 'Botschafter', picture: 'http://localhost:8080/uploads/alma.jpg', locale: 'de-DE' };
    const mail = { email, email_verified: true };
    const region = { region_ids: [String(regions[0]), String(regions[1]), String(regions[2])], region_ambassador: [String(regions[2])] };
    const cases: [string, Record<string, unknown>][] = [
      ['openid', base],
      ['openid profile', { ...base, ...profile }],
      ['openid email', { ...base, ...mail }],
      ['openid regions', { ...base, ...region }],
      ['openid profile email regions', { ...base, ...profile, ...mail, ...region }],
    ];
    for (const [scope, expected] of cases) {
      const tokens = await tokensFor(scope);
      expect(decodeJwt(tokens.id_token).sub).toBe(sub);
      const response = await userinfo(tokens.access_token);
      expect(response.statusCode).toBe(200);
      expect(response.json(), scope).toEqual(expected);
      const post = await userinfo(tokens.access_token, 'POST');
      expect(post.json()).toEqual(expected);
      const form = await t.app.inject({ method: 'POST', url: '/oauth/userinfo', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `access_token=${tokens.access_token}` });
      expect(form.json()).toEqual(expected);
    }
  });
});

describe('userinfo rejects bad tokens with 401 and WWW-Authenticate', () => {
  async function expectInvalid(response: Awaited<ReturnType<typeof userinfo>>) {
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(response.json().error).toBe('invalid_token');
  }

  test('no token, or another scheme\'s credentials: 401 with a challenge that carries no error code (RFC 6750 §3.1)', async () => {
    for (const headers of [{}, { authorization: 'Basic ZGVtby1hcHA6c2VjcmV0' }, { authorization: 'Bearer ' }]) {
      const response = await t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'An access token is required.' });
    }
  });

  test('malformed, wrong signature, wrong typ', async () => {
    await expectInvalid(await userinfo('abc'));
    await expectInvalid(await userinfo('a.b.c'));
    const tokens = await tokensFor('openid');
    const { privateKey } = await generateKeyPair('RS256');
    const claims = decodeJwt(tokens.access_token);
    const forged = await new SignJWT(claims).setProtectedHeader({ ...decodeProtectedHeader(tokens.access_token), alg: 'RS256' } as never).sign(privateKey);
    await expectInvalid(await userinfo(forged));
    // An ID token is not an access token (typ).
    await expectInvalid(await userinfo(tokens.id_token));
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${tokens.access_token.split('.')[1]}.`;
    await expectInvalid(await userinfo(none));
  });

  test('wrong typ: a token signed by the server with every access-token claim but typ JWT is refused', async () => {
    const tokens = await tokensFor('openid');
    const key = await importPKCS8(t.keys.signingKeyPem, 'RS256');
    const header = decodeProtectedHeader(tokens.access_token);
    const resign = (typ: string) => new SignJWT(decodeJwt(tokens.access_token)).setProtectedHeader({ ...header, alg: 'RS256', typ } as never).sign(key);
    // Control: the same claims re-signed with typ at+jwt pass, so only typ makes the difference.
    expect((await userinfo(await resign('at+jwt'))).statusCode).toBe(200);
    await expectInvalid(await userinfo(await resign('JWT')));
  });

  test('wrong iss: a token signed by the server for another issuer is refused', async () => {
    const tokens = await tokensFor('openid');
    const key = await importPKCS8(t.keys.signingKeyPem, 'RS256');
    const header = decodeProtectedHeader(tokens.access_token);
    const resign = (iss: string) => new SignJWT({ ...decodeJwt(tokens.access_token), iss }).setProtectedHeader({ ...header, alg: 'RS256' } as never).sign(key);
    expect((await userinfo(await resign('http://localhost:8080'))).statusCode).toBe(200);
    await expectInvalid(await userinfo(await resign('https://evil.example')));
    await expectInvalid(await userinfo(await resign('http://localhost:8080/')));
  });

  test('a token signed by the server that disagrees with its grant (another client_id, a wider scope) is refused', async () => {
    const tokens = await tokensFor('openid profile');
    const key = await importPKCS8(t.keys.signingKeyPem, 'RS256');
    const header = decodeProtectedHeader(tokens.access_token);
    const resign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...decodeJwt(tokens.access_token), ...claims }).setProtectedHeader({ ...header, alg: 'RS256' } as never).sign(key);
    const other = (await makeClient(t)) as Registered;
    expect((await userinfo(await resign({}))).statusCode).toBe(200);
    expect((await userinfo(await resign({ scope: 'openid' }))).statusCode).toBe(200);
    await expectInvalid(await userinfo(await resign({ client_id: other.clientId, aud: other.clientId })));
    await expectInvalid(await userinfo(await resign({ scope: 'openid profile email' })));
  });

  test('a valid token without openid (narrowed at refresh) is 403 insufficient_scope (RFC 6750 §3.1)', async () => {
    const tokens = await tokensFor('openid profile');
    const narrowed = (await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'profile', client_id: client.clientId, client_secret: client.secret })).json();
    expect(narrowed.scope).toBe('profile');
    const response = await userinfo(narrowed.access_token);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'insufficient_scope', error_description: 'The access token lacks the openid scope.' });
    expect(response.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="openid", error_description="The access token lacks the openid scope."');
  });

  test('expired after one hour', async () => {
    const tokens = await tokensFor('openid');
    // exp counts whole seconds from iat: 3598 s later it is surely still valid, 3601 s later surely not.
    t.clock.advance(3598);
    expect((await userinfo(tokens.access_token)).statusCode).toBe(200);
    t.clock.advance(3);
    await expectInvalid(await userinfo(tokens.access_token));
    session = await logInAs(t.app, { email, password: 'correct horse battery' });
  });

  test('revoked', async () => {
    const tokens = await tokensFor('openid');
    expect((await revoke(tokens.access_token)).statusCode).toBe(200);
    await expectInvalid(await userinfo(tokens.access_token));
  });
});

describe('revocation (RFC 7009)', () => {
  test('a refresh token: its whole family is dead', async () => {
    const tokens = await tokensFor('openid');
    const rotated = (await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret })).json();
    const response = await revoke(rotated.refresh_token, client, 'refresh_token');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const after = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: client.clientId, client_secret: client.secret });
    expect(after.json().error).toBe('invalid_grant');
    expect((await userinfo(rotated.access_token)).statusCode).toBe(401);
  });

  test('unknown tokens answer 200; another client\'s attempt on my token is refused and the token keeps working; client authentication is required', async () => {
    expect((await revoke('unknown-token')).statusCode).toBe(200);
    const other = (await makeClient(t)) as Registered;
    const tokens = await tokensFor('openid');
    for (const token of [tokens.refresh_token, tokens.access_token]) {
      const refused = await revoke(token, other);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ error: 'invalid_request', error_description: 'The token was not issued to this client.' });
    }
    expect((await userinfo(tokens.access_token)).statusCode).toBe(200);
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId, client_secret: client.secret });
    expect(refreshed.statusCode).toBe(200);
    const unauthenticated = await revoke(tokens.access_token, { clientId: client.clientId, secret: 'wrong' });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.json().error).toBe('invalid_client');
    expect((await userinfo(tokens.access_token)).statusCode).toBe(200);
  });
});

describe('userinfo request errors', () => {
  test('a token in both the header and the form body is a 400 invalid_request with its Bearer challenge', async () => {
    const { access_token } = await tokensFor('openid');
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ access_token }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'Send the access token in one place only.' });
    expect(response.headers['www-authenticate']).toBe('Bearer error="invalid_request", error_description="Send the access token in one place only."');
  });
});

describe('POST-only endpoints', () => {
  test('PUT, PATCH and DELETE of /oauth/userinfo answer 405 naming GET and POST', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const response = await t.app.inject({ method, url: '/oauth/userinfo' });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET, POST, OPTIONS');
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'This endpoint accepts GET and POST only.' });
    }
  });

  test('GET, PUT, PATCH and DELETE of /oauth/token and /oauth/revoke answer 405 in OAuth JSON, not an HTML page', async () => {
    for (const [url, method] of (['/oauth/token', '/oauth/revoke'] as const).flatMap((u) => (['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((m) => [u, m] as const))) {
      const response = await t.app.inject({ method, url });
      expect(response.statusCode).toBe(405);
      expect(response.headers['content-type']).toContain('application/json');
      expect(response.headers.allow).toBe('POST, OPTIONS');
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'This endpoint accepts POST only.' });
    }
  });
});
