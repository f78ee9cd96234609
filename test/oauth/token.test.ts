/**
 * Codes (single use, 10 minutes, bindings, concurrency,
 * reuse revocation), token contents, client authentication and errors.
 */
import { createHash } from 'node:crypto';
import { compactDecrypt, decodeJwt, decodeProtectedHeader, createLocalJWKSet, jwtDecrypt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { deleteClient, regenerateClientSecret, updateClient } from '../../src/oauth/clients/clients.service.ts';
import { derivedKeys } from '../../src/oauth/keys/derived-keys.ts';
import { buildTestApp } from '../helpers/app.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const ISSUER = 'http://localhost:8080';
const t = useTestApp();
let session: TestSession;
let userId: number;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  const user = await makeUser(t.db);
  userId = user.id;
  session = await logInAs(t.app, user);
  client = (await makeClient(t)) as { clientId: string; secret: string };
});

function exchange(code: string, overrides: Record<string, string | undefined> = {}, c = client) {
  const form = Object.fromEntries(Object.entries({
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER,
    client_id: c.clientId, client_secret: c.secret, ...overrides,
  }).filter((e): e is [string, string] => e[1] !== undefined));
  return tokenRequest(t, form);
}

function userinfo(accessToken: string) {
  return t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
}

const INVALID_CODE = { error: 'invalid_grant', error_description: 'Invalid or expired code' };

describe('authorization code', () => {
  test('success: tokens per SPEC §5.3 with no-store', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, nonce: 'nonce-42' });
    const response = await exchange(code);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache'); // RFC 6749 §5.1
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid profile email regions' });

    const jwks = createLocalJWKSet((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json());
    const at = await jwtVerify(body.access_token, jwks, { issuer: ISSUER, typ: 'at+jwt', algorithms: ['RS256'] });
    expect(at.protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(at.protectedHeader.kid).toBeTypeOf('string');
    expect(Object.keys(at.payload).sort()).toEqual(['aud', 'auth_time', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub']);
    expect(at.payload).toMatchObject({ sub: String(userId), aud: client.clientId, client_id: client.clientId, scope: 'openid profile email regions' });
    expect(at.payload.exp! - at.payload.iat!).toBe(3600);

    const id = await jwtVerify(body.id_token, jwks, { issuer: ISSUER, audience: client.clientId, algorithms: ['RS256'] });
    expect(id.payload).toMatchObject({ sub: String(userId), nonce: 'nonce-42', auth_time: at.payload.auth_time });
    expect(id.payload.at_hash).toBe(createHash('sha256').update(body.access_token).digest().subarray(0, 16).toString('base64url'));
    expect(id.protectedHeader.kid).toBe(at.protectedHeader.kid);

    expect(decodeProtectedHeader(body.refresh_token)).toMatchObject({ alg: 'dir', enc: 'A256GCM' });
    await expect(compactDecrypt(body.refresh_token, new Uint8Array(32).fill(7))).rejects.toThrow();
    const { payload } = await jwtDecrypt(body.refresh_token, derivedKeys(t.keys).refreshToken);
    const row = await t.db.selectFrom('oauth_refresh_tokens').selectAll().where('id', '=', payload.rid as number).executeTakeFirstOrThrow();
    expect(row.rotated_at).toBeNull();
    expect(payload.exp! - payload.iat!).toBe(30 * 24 * 3600);
    // The database holds no usable token: nothing in the row is part of it.
    expect(JSON.stringify(row)).not.toContain(body.refresh_token.split('.')[3]);
  });

  test('the ID token has no nonce when none was sent', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const body = (await exchange(code)).json();
    expect('nonce' in decodeJwt(body.id_token)).toBe(false);
    expect(decodeJwt(body.id_token).auth_time).toBeTypeOf('number');
  });

  test('expires after 10 minutes (injected clock)', async () => {
    const early = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const late = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    t.clock.advance(595);
    expect((await exchange(early)).statusCode).toBe(200);
    t.clock.advance(10);
    const response = await exchange(late);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_CODE);
  });

  test('bound to client, redirect URI and PKCE: every failure is invalid_grant "Invalid or expired code"', async () => {
    const other = (await makeClient(t)) as { clientId: string; secret: string };
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const failures = [
      await exchange(code, {}, other),
      await exchange(code, { redirect_uri: `${CALLBACK}/` }),
      await exchange(code, { code_verifier: 'x'.repeat(43) }),
      await exchange(code, { code_verifier: undefined }),
      await exchange(`${code}x`),
    ];
    for (const response of failures) {
      expect(response.statusCode).toBe(400);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.pragma).toBe('no-cache');
      expect(response.json()).toEqual(INVALID_CODE);
    }
    // None of the failures consumed it.
    expect((await exchange(code)).statusCode).toBe(200);

    const noPkce = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, verifier: null });
    expect((await exchange(noPkce)).json()).toEqual(INVALID_CODE);
    expect((await exchange(noPkce, { code_verifier: undefined })).statusCode).toBe(200);
  });

  test('single use: a second use fails and revokes the tokens issued from the code', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const first = (await exchange(code)).json();
    expect((await userinfo(first.access_token)).statusCode).toBe(200);
    const second = await exchange(code);
    expect(second.json()).toEqual(INVALID_CODE);
    expect((await userinfo(first.access_token)).statusCode).toBe(401);
    const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.clientId, client_secret: client.secret });
    expect(refresh.json().error).toBe('invalid_grant');
  });

  test('a second use with a malformed code_verifier revokes as well; on a live code it burns nothing', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    expect((await exchange(code, { code_verifier: 'short' })).json()).toEqual(INVALID_CODE);
    const first = (await exchange(code)).json();
    expect((await userinfo(first.access_token)).statusCode).toBe(200);
    expect((await exchange(code, { code_verifier: 'short' })).json()).toEqual(INVALID_CODE);
    expect((await userinfo(first.access_token)).statusCode).toBe(401);
  });

  test('two concurrent exchanges of one code: exactly one succeeds', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const responses = await Promise.all([exchange(code), exchange(code), exchange(code)]);
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
    expect(await t.db.selectFrom('oauth_grants').select('id').where('id', 'in',
      t.db.selectFrom('oauth_codes').select('grant_id').where('code_digest', '=', createHash('sha256').update(code).digest())).execute()).toHaveLength(1);
  });
});

describe('client authentication and request errors', () => {
  test('client_secret_basic with form-url-encoded credentials (RFC 6749 §2.3.1)', async () => {
    const odd = (await makeClient(t, { clientId: 'odd.client_id-1' })) as { clientId: string; secret: string };
    const code = await obtainCode(t, { clientId: odd.clientId, cookie: session.cookie });
    const basic = Buffer.from(`odd%2Eclient%5Fid-1:${encodeURIComponent(odd.secret)}`).toString('base64');
    const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER }, { authorization: `Basic ${basic}` });
    expect(response.statusCode).toBe(200);
  });

  test('wrong secret: 401 invalid_client, WWW-Authenticate only with Basic', async () => {
    const post = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: client.clientId, client_secret: 'wrong' });
    expect(post.statusCode).toBe(401);
    expect(post.json().error).toBe('invalid_client');
    expect(post.headers['www-authenticate']).toBeUndefined();
    const basic = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK }, { authorization: `Basic ${Buffer.from(`${client.clientId}:wrong`).toString('base64')}` });
    expect(basic.statusCode).toBe(401);
    expect(basic.headers['www-authenticate']).toMatch(/^Basic /);
    expect(basic.headers['cache-control']).toBe('no-store');
    const missing = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: client.clientId });
    expect(missing.statusCode).toBe(401);
    const unknown = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: 'nobody', client_secret: 's' });
    expect(unknown.json().error).toBe('invalid_client');
  });

  test('malformed requests answer RFC 6749 §5.2 JSON', async () => {
    const json = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'authorization_code' } });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe('invalid_request');
    expect((await tokenRequest(t, { client_id: client.clientId, client_secret: client.secret })).json().error).toBe('invalid_request');
    expect((await tokenRequest(t, { grant_type: 'password', client_id: client.clientId, client_secret: client.secret })).json().error).toBe('unsupported_grant_type');
    const both = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_secret: client.secret },
      { authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}` });
    expect(both.json().error).toBe('invalid_request');
    const garbage = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: '{', headers: { 'content-type': 'application/json' } });
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().error).toBe('invalid_request');
  });

  test('a parameter sent without a value counts as omitted (RFC 6749 §3.2)', async () => {
    const emptyGrantType = await tokenRequest(t, { grant_type: '', client_id: client.clientId, client_secret: client.secret });
    expect(emptyGrantType.statusCode).toBe(400);
    expect(emptyGrantType.json()).toEqual({ error: 'invalid_request', error_description: 'grant_type is required.' });
    // An empty client_secret is no secret: the confidential client is not authenticated, and the code is kept.
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const emptySecret = await exchange(code, { client_secret: '' });
    expect(emptySecret.statusCode).toBe(401);
    expect(emptySecret.json().error).toBe('invalid_client');
    expect((await exchange(code)).statusCode).toBe(200);
  });

  test('"Authorization: Basic" without credentials is an attempt at Basic: 401 with its challenge (RFC 6749 §5.2)', async () => {
    for (const authorization of ['Basic', 'basic  ']) {
      const response = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK }, { authorization });
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toBe('invalid_client');
      expect(response.headers['www-authenticate']).toBe('Basic realm="oauth", charset="UTF-8"');
    }
  });

  test('a redirect URI removed from the client since the code was issued gets no tokens; the code is not spent, and a URI added back takes it', async () => {
    const c = (await makeClient(t, { redirectUris: [CALLBACK, 'https://app.example/other'] })) as { clientId: string; secret: string };
    const code = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie });
    const settings = { name: 'Test App', confidential: true, scopes: ['openid'], grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [] };
    await updateClient(t.db, t.keys, c.clientId, { ...settings, redirectUris: ['https://app.example/other'] }, t.clock.now());
    const refused = await exchange(code, {}, c);
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({ status: 400, body: INVALID_CODE });
    const row = await t.db.selectFrom('oauth_codes').select('used_at').where('client_id', '=', (await findClientRow(t.db, c.clientId))!.id).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
    await updateClient(t.db, t.keys, c.clientId, { ...settings, redirectUris: ['https://app.example/other', CALLBACK] }, t.clock.now());
    expect((await exchange(code, {}, c)).statusCode).toBe(200);
    // Used once: a second use with a URI never registered is still seen as a reuse, and revokes what the first issued.
    expect((await exchange(code, { redirect_uri: 'https://elsewhere.example/cb' }, c)).json()).toEqual(INVALID_CODE);
    expect(await t.db.selectFrom('oauth_grants').select('revoked_at').where('client_id', '=', (await findClientRow(t.db, c.clientId))!.id).execute())
      .toEqual([{ revoked_at: expect.any(Date) }]);
  });

  test('a public client may not send a secret', async () => {
    const pub = await makeClient(t, { confidential: false });
    const response = await tokenRequest(t, { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK, client_id: pub.clientId, client_secret: 'anything' });
    expect(response.json().error).toBe('invalid_client');
  });

  test('regenerating the secret stops the old one; deleting the client stops its tokens', async () => {
    const c = (await makeClient(t)) as { clientId: string; secret: string };
    const body = (await exchange(await obtainCode(t, { clientId: c.clientId, cookie: session.cookie }), {}, c)).json();
    const fresh = await regenerateClientSecret(t.db, t.keys, c.clientId, t.clock.now());
    const old = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: c.clientId, client_secret: c.secret });
    expect(old.statusCode).toBe(401);
    const ok = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: c.clientId, client_secret: fresh });
    expect(ok.statusCode).toBe(200);
    await deleteClient(t.db, c.clientId);
    expect((await userinfo(ok.json().access_token)).statusCode).toBe(401);
  });

  test('failed requests are rate limited per IP (429)', async () => {
    const limited = await buildTestApp();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 32; i += 1) {
        const r = await limited.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: '10.9.9.9', payload: 'grant_type=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
        statuses.push(r.statusCode);
      }
      expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
      expect(statuses.slice(30)).toEqual([429, 429]);
      const other = await limited.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: '10.9.9.8', payload: 'grant_type=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(other.statusCode).toBe(400);
      limited.clock.advance(61);
      const later = await limited.app.inject({ method: 'POST', url: '/oauth/token', remoteAddress: '10.9.9.9', payload: 'grant_type=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(later.statusCode).toBe(400);
    } finally {
      await limited.close();
    }
  });
});
