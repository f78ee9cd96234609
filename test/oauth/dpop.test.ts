/**
 * DPoP (RFC 9449) driven by oauth4webapi over real HTTP — code exchange,
 * refresh, userinfo, PAR, introspection — and the proofs and uses the server
 * must refuse, checked request by request with hand-made proofs.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, formFields, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp({ listening: true });
const insecure = { [oauth.allowInsecureRequests]: true } as const;
type KeyPair = { privateKey: CryptoKey; publicKey: CryptoKey };
let session: TestSession;
let as: oauth.AuthorizationServer;
let spa: { clientId: string };
let key: KeyPair;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  spa = await makeClient(t, { confidential: false });
  key = await generateKeyPair('ES256', { extractable: true });
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});

async function thumbprint(pair: KeyPair): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(pair.publicKey), 'sha256');
}

/** A code for the client, its callback parameters as oauth4webapi validates them. */
async function callbackFor(clientId: string, extra: Record<string, string> = {}) {
  const code = await obtainCode(t, { clientId, cookie: session.cookie, scope: 'openid profile', extra });
  return oauth.validateAuthResponse(as, { client_id: clientId }, new URL(`${CALLBACK}?${new URLSearchParams({ code, iss: t.baseUrl })}`), oauth.expectNoState);
}

async function exchange(clientId: string, dpop: oauth.DPoPHandle | undefined, auth: oauth.ClientAuth = oauth.None(), extra: Record<string, string> = {}) {
  const response = await oauth.authorizationCodeGrantRequest(as, { client_id: clientId }, auth, await callbackFor(clientId, extra), CALLBACK, TEST_VERIFIER, { ...insecure, DPoP: dpop });
  return oauth.processAuthorizationCodeResponse(as, { client_id: clientId }, response);
}

/** A hand-made proof: RFC 9449 §4.2's claims for POST /oauth/token unless overridden. */
async function proof(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, pair: KeyPair = key): Promise<string> {
  return new SignJWT({ jti: crypto.randomUUID(), htm: 'POST', htu: `${t.baseUrl}/oauth/token`, iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(pair.publicKey), ...header } as { alg: string })
    .sign(pair.privateKey);
}

async function userinfo(headers: Record<string, string>) {
  return t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers });
}

function ath(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest('base64url');
}

describe('discovery', () => {
  test('lists the DPoP signing algorithms, asymmetric only, Ed25519 among them', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(document.dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519']);
    expect(document.token_endpoint_auth_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519']);
  });
});

describe('oauth4webapi with DPoP, no server nonce', () => {
  test('a public client: bound access token (token_type DPoP, cnf.jkt), userinfo, refresh with the same key', async () => {
    const dpop = oauth.DPoP({}, key);
    const tokens = await exchange(spa.clientId, dpop);
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(key) });
    const claims = await oauth.processUserInfoResponse(as, { client_id: spa.clientId }, oauth.skipSubjectCheck,
      await oauth.userInfoRequest(as, { client_id: spa.clientId }, tokens.access_token, { ...insecure, DPoP: dpop }));
    expect(claims.sub).toEqual(expect.any(String));
    const refreshed = await oauth.processRefreshTokenResponse(as, { client_id: spa.clientId },
      await oauth.refreshTokenGrantRequest(as, { client_id: spa.clientId }, oauth.None(), tokens.refresh_token!, { ...insecure, DPoP: dpop }));
    expect(refreshed.token_type).toBe('dpop');
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt: await thumbprint(key) });
  });

  test('an Ed25519 key signs its proofs with alg Ed25519 (RFC 9864), accepted', async () => {
    const ed = await generateKeyPair('Ed25519', { extractable: true });
    const dpop = oauth.DPoP({}, ed);
    const tokens = await exchange(spa.clientId, dpop);
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await thumbprint(ed) });
  });

  test('without a proof the tokens are bearer tokens, unbound', async () => {
    const tokens = await exchange(spa.clientId, undefined);
    expect(tokens.token_type).toBe('bearer');
    expect(decodeJwt(tokens.access_token).cnf).toBeUndefined();
  });

  test('a public client\'s bound refresh token is refused with another key or without a proof, and still works with its own', async () => {
    const tokens = await exchange(spa.clientId, oauth.DPoP({}, key));
    const other = await generateKeyPair('ES256', { extractable: true });
    const refused = { error: 'invalid_grant', error_description: 'Invalid or expired refresh token' };
    const withOther = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: spa.clientId },
      { dpop: await proof({}, {}, other) });
    expect([withOther.statusCode, withOther.json()]).toEqual([400, refused]);
    const without = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: spa.clientId });
    expect([without.statusCode, without.json()]).toEqual([400, refused]);
    const own = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: spa.clientId }, { dpop: await proof() });
    expect(own.statusCode).toBe(200);
    expect(own.json().token_type).toBe('DPoP');
  });

  test('a public client that exchanged its code without a proof: its first refresh with a proof binds the later refresh tokens to that key', async () => {
    const tokens = await exchange(spa.clientId, undefined);
    expect(tokens.token_type).toBe('bearer');
    const grantId = Number(decodeJwt(tokens.access_token).jti!.split('.')[0]);
    const grantJkt = async () => (await t.db.selectFrom('oauth_grants').select('dpop_jkt').where('id', '=', grantId).executeTakeFirstOrThrow()).dpop_jkt;
    expect(await grantJkt()).toBeNull();
    const refresh = (refreshToken: string, headers: Record<string, string> = {}) =>
      tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: spa.clientId }, headers);
    const bound = await refresh(tokens.refresh_token!, { dpop: await proof() });
    expect(bound.statusCode).toBe(200);
    expect(bound.json().token_type).toBe('DPoP');
    expect(decodeJwt(bound.json().access_token).cnf).toEqual({ jkt: await thumbprint(key) });
    expect(await grantJkt()).toBe(await thumbprint(key));
    const refused = { error: 'invalid_grant', error_description: 'Invalid or expired refresh token' };
    const without = await refresh(bound.json().refresh_token);
    expect([without.statusCode, without.json()]).toEqual([400, refused]);
    const withOther = await refresh(bound.json().refresh_token, { dpop: await proof({}, {}, await generateKeyPair('ES256', { extractable: true })) });
    expect([withOther.statusCode, withOther.json()]).toEqual([400, refused]);
    const own = await refresh(bound.json().refresh_token, { dpop: await proof() });
    expect(own.statusCode).toBe(200);
    expect(own.json().token_type).toBe('DPoP');
  });

  test('a public client\'s retry inside the grace period that adds a proof the rotation did not have is refused; nothing is revoked or bound', async () => {
    const tokens = await exchange(spa.clientId, undefined);
    const grantId = Number(decodeJwt(tokens.access_token).jti!.split('.')[0]);
    const grant = () => t.db.selectFrom('oauth_grants').select(['dpop_jkt', 'revoked_at']).where('id', '=', grantId).executeTakeFirstOrThrow();
    const refresh = (refreshToken: string, headers: Record<string, string> = {}) =>
      tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: spa.clientId }, headers);
    const rotated = await refresh(tokens.refresh_token!);
    expect(rotated.statusCode).toBe(200);
    const retried = await refresh(tokens.refresh_token!, { dpop: await proof() });
    expect([retried.statusCode, retried.json()]).toEqual([400, { error: 'invalid_grant', error_description: 'Invalid or expired refresh token' }]);
    expect(await grant()).toEqual({ dpop_jkt: null, revoked_at: null });
    // The retry as the rotation was sent is still answered (with the same successor row); the successor binds the grant at its first refresh with a proof.
    expect((await refresh(tokens.refresh_token!)).statusCode).toBe(200);
    const bound = await refresh(rotated.json().refresh_token, { dpop: await proof() });
    expect(bound.statusCode).toBe(200);
    expect(await grant()).toEqual({ dpop_jkt: await thumbprint(key), revoked_at: null });
  });

  test('a confidential client\'s refresh token is not bound: a refresh without a proof gets a bearer token, also after one with a proof', async () => {
    const app = await makeClient(t);
    const auth = oauth.ClientSecretBasic(app.secret!);
    const tokens = await exchange(app.clientId, oauth.DPoP({}, key), auth);
    expect(tokens.token_type).toBe('dpop');
    const refreshed = await oauth.processRefreshTokenResponse(as, { client_id: app.clientId },
      await oauth.refreshTokenGrantRequest(as, { client_id: app.clientId }, auth, tokens.refresh_token!, insecure));
    expect(refreshed.token_type).toBe('bearer');
    const again = await oauth.processRefreshTokenResponse(as, { client_id: app.clientId },
      await oauth.refreshTokenGrantRequest(as, { client_id: app.clientId }, auth, refreshed.refresh_token!, { ...insecure, DPoP: oauth.DPoP({}, key) }));
    expect(again.token_type).toBe('dpop');
    const third = await oauth.processRefreshTokenResponse(as, { client_id: app.clientId },
      await oauth.refreshTokenGrantRequest(as, { client_id: app.clientId }, auth, again.refresh_token!, insecure));
    expect(third.token_type).toBe('bearer');
  });
});

describe('userinfo (RFC 9449 §7)', () => {
  let accessToken: string;
  beforeAll(async () => {
    accessToken = (await exchange(spa.clientId, oauth.DPoP({}, key))).access_token;
  });
  const userinfoProof = (token: string, claims: Record<string, unknown> = {}, pair: KeyPair = key) =>
    proof({ htm: 'GET', htu: `${t.baseUrl}/oauth/userinfo`, ath: ath(token), ...claims }, {}, pair);

  test('a bound token as a Bearer token: 401 with the DPoP challenge', async () => {
    const response = await userinfo({ authorization: `Bearer ${accessToken}` });
    expect(response.statusCode).toBe(401);
    const description = 'The access token is DPoP-bound: present it with Authorization: DPoP and a DPoP proof.';
    expect(response.headers['www-authenticate']).toBe(`DPoP error="invalid_token", error_description="${description}", algs="ES256 PS256 RS256 EdDSA Ed25519"`);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: description });
  });

  test('Authorization: DPoP with a proof of the key, naming the token: the claims', async () => {
    const response = await userinfo({ authorization: `DPoP ${accessToken}`, dpop: await userinfoProof(accessToken) });
    expect(response.statusCode).toBe(200);
    expect(response.json().sub).toEqual(expect.any(String));
  });

  test.each([
    ['no proof', async () => undefined, 'invalid_token', 'A DPoP proof is required with Authorization: DPoP.'],
    ['a proof of another key', async () => userinfoProof(accessToken, {}, await generateKeyPair('ES256', { extractable: true })),
      'invalid_token', 'The DPoP proof is signed by another key than the one the access token is bound to.'],
    ['a proof naming another token (ath)', async () => userinfoProof('another token'), 'invalid_dpop_proof', 'The DPoP proof does not name this access token (ath).'],
    ['a proof without ath', async () => userinfoProof(accessToken, { ath: undefined }), 'invalid_dpop_proof', 'The DPoP proof does not name this access token (ath).'],
    ['a proof for POST', async () => userinfoProof(accessToken, { htm: 'POST' }), 'invalid_dpop_proof', 'The DPoP proof is for another HTTP method (htm).'],
  ])('%s: 401 with the DPoP challenge', async (_name, make, error, description) => {
    const dpop = await make();
    const response = await userinfo({ authorization: `DPoP ${accessToken}`, ...(dpop === undefined ? {} : { dpop }) });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe(`DPoP error="${error}", error_description="${description}", algs="ES256 PS256 RS256 EdDSA Ed25519"`);
    expect(response.json()).toEqual({ error, error_description: description });
  });

  test('a bearer token presented as DPoP is refused; as Bearer it works', async () => {
    const bearer = (await exchange(spa.clientId, undefined)).access_token;
    const response = await userinfo({ authorization: `DPoP ${bearer}`, dpop: await userinfoProof(bearer) });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is not DPoP-bound: present it as a Bearer token.' });
    expect((await userinfo({ authorization: `Bearer ${bearer}` })).statusCode).toBe(200);
  });

  test('the same proof twice: the second is a replay', async () => {
    const once = await userinfoProof(accessToken);
    expect((await userinfo({ authorization: `DPoP ${accessToken}`, dpop: once })).statusCode).toBe(200);
    const again = await userinfo({ authorization: `DPoP ${accessToken}`, dpop: once });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before (jti).' });
  });
});

describe('proofs refused at the token endpoint (400 invalid_dpop_proof)', () => {
  let client: { clientId: string; secret: string | null };
  beforeAll(async () => {
    client = await makeClient(t);
  });
  /** A refresh with a bogus token: a proof that passes reaches the grant, which refuses the token. */
  const refreshWith = (dpop: string) => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: client.secret! }, { dpop });
  async function expectRefused(dpop: string, description: string) {
    const response = await refreshWith(dpop);
    expect([response.statusCode, response.json()]).toEqual([400, { error: 'invalid_dpop_proof', error_description: description }]);
  }

  test('a good proof reaches the grant', async () => {
    const response = await refreshWith(await proof());
    expect([response.statusCode, response.json().error]).toEqual([400, 'invalid_grant']);
  });

  test('a replayed proof', async () => {
    const once = await proof();
    expect((await refreshWith(once)).json().error).toBe('invalid_grant');
    await expectRefused(once, 'The DPoP proof was used before (jti).');
  });

  test('the same jti under another key is no replay', async () => {
    const jti = crypto.randomUUID();
    expect((await refreshWith(await proof({ jti }))).json().error).toBe('invalid_grant');
    expect((await refreshWith(await proof({ jti }, {}, await generateKeyPair('ES256', { extractable: true })))).json().error).toBe('invalid_grant');
  });

  test('wrong htu; htu with a query and fragment, or in another syntax of the same URI (RFC 3986 §6.2.2), is the same URI', async () => {
    await expectRefused(await proof({ htu: `${t.baseUrl}/oauth/userinfo` }), 'The DPoP proof is for another URI (htu).');
    await expectRefused(await proof({ htu: 'https://elsewhere.example/oauth/token' }), 'The DPoP proof is for another URI (htu).');
    await expectRefused(await proof({ htu: `${t.baseUrl}/oauth/%2Ftoken` }), 'The DPoP proof is for another URI (htu).');
    await expectRefused(await proof({ htu: `${t.baseUrl}/oauth/Token` }), 'The DPoP proof is for another URI (htu).');
    const { origin } = new URL(t.baseUrl);
    for (const htu of [`${t.baseUrl}/oauth/token?x=1#f`, `${origin.toUpperCase()}/oauth/./token`, `${t.baseUrl}/oauth/%74oken`, `${t.baseUrl}/%6Fauth/token`]) {
      expect((await refreshWith(await proof({ htu }))).json().error, htu).toBe('invalid_grant');
    }
  });

  test('wrong htm', async () => {
    await expectRefused(await proof({ htm: 'GET' }), 'The DPoP proof is for another HTTP method (htm).');
  });

  test('stale or future iat, no iat, no jti', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await proof({ iat: now - 3600 }), 'The DPoP proof is not recent enough (iat).');
    await expectRefused(await proof({ iat: now + 600 }), 'The DPoP proof is not recent enough (iat).');
    await expectRefused(await proof({ iat: undefined }), 'The DPoP proof needs an iat.');
    await expectRefused(await proof({ jti: undefined }), 'The DPoP proof needs a jti.');
  });

  test('a private key in the jwk header, another typ, a symmetric alg, alg none, a signature by another key, two headers', async () => {
    await expectRefused(await proof({}, { jwk: await exportJWK(key.privateKey) }), 'The DPoP proof\'s jwk must be a public key.');
    await expectRefused(await proof({}, { typ: 'JWT' }), 'The DPoP proof\'s typ must be dpop+jwt.');
    const other = await generateKeyPair('ES256', { extractable: true });
    await expectRefused(await proof({}, { jwk: await exportJWK(other.publicKey) }), 'The DPoP proof is invalid.');
    const secret = new Uint8Array(32);
    const hmac = await new SignJWT({ jti: 'h', htm: 'POST', htu: `${t.baseUrl}/oauth/token`, iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'AAAA' } as JWK }).sign(secret);
    const algs = 'The DPoP proof must be signed with one of ES256, PS256, RS256, EdDSA, Ed25519 (alg).';
    await expectRefused(hmac, algs);
    const unsigned = [{ alg: 'none', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) }, { jti: 'n', htm: 'POST', htu: `${t.baseUrl}/oauth/token`, iat: Math.floor(Date.now() / 1000) }]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.');
    await expectRefused(`${unsigned}.`, algs);
    await expectRefused(`${unsigned}.c2ln`, algs);
    await expectRefused('not a jwt', 'The DPoP header must hold one proof JWT.');
    await expectRefused('bm90.anNvbg.', 'The DPoP header must hold one proof JWT.');
    const response = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: client.secret! },
      { dpop: `${await proof()}, ${await proof()}` });
    expect(response.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'Send exactly one DPoP header.' });
  });
});

describe('dpop_jkt binds the code (RFC 9449 §10)', () => {
  test('redeemed only with a proof of that key; a mismatch or no proof leaves the code unredeemed', async () => {
    const jkt = await thumbprint(key);
    const code = await obtainCode(t, { clientId: spa.clientId, cookie: session.cookie, scope: 'openid', extra: { dpop_jkt: jkt } });
    const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: spa.clientId };
    const refused = { error: 'invalid_grant', error_description: 'Invalid or expired code' };
    const other = await generateKeyPair('ES256', { extractable: true });
    const mismatch = await tokenRequest(t, form, { dpop: await proof({}, {}, other) });
    expect([mismatch.statusCode, mismatch.json()]).toEqual([400, refused]);
    const none = await tokenRequest(t, form);
    expect([none.statusCode, none.json()]).toEqual([400, refused]);
    const own = await tokenRequest(t, form, { dpop: await proof() });
    expect(own.statusCode).toBe(200);
    expect(decodeJwt(own.json().access_token).cnf).toEqual({ jkt });
  });

  test('a malformed dpop_jkt goes back to the client as invalid_request', async () => {
    const query = new URLSearchParams({ response_type: 'code', client_id: spa.clientId, redirect_uri: CALLBACK, scope: 'openid', dpop_jkt: 'short',
      code_challenge: createHash('sha256').update(TEST_VERIFIER).digest('base64url'), code_challenge_method: 'S256' });
    const response = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie: session.cookie } });
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('dpop_jkt must be a SHA-256 JWK thumbprint (43 base64url characters).');
  });
});

describe('pushed authorization requests with DPoP (RFC 9449 §10.1)', () => {
  test('a proof at /oauth/par binds the code to its key', async () => {
    const dpop = oauth.DPoP({}, key);
    const pushed = await oauth.processPushedAuthorizationResponse(as, { client_id: spa.clientId }, await oauth.pushedAuthorizationRequest(as, { client_id: spa.clientId }, oauth.None(), {
      redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', code_challenge: createHash('sha256').update(TEST_VERIFIER).digest('base64url'), code_challenge_method: 'S256',
    }, { ...insecure, DPoP: dpop }));
    let authorize = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${new URLSearchParams({ client_id: spa.clientId, request_uri: pushed.request_uri })}`, headers: { cookie: session.cookie } });
    if (authorize.statusCode === 200) {
      authorize = await t.app.inject({
        method: 'POST', url: '/oauth/authorize', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ ...formFields(authorize.body), decision: 'allow' }).toString(),
      });
    }
    const location = new URL(authorize.headers.location as string);
    const code = location.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const form = { grant_type: 'authorization_code', code: code!, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: spa.clientId };
    expect((await tokenRequest(t, form)).json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
    const own = await tokenRequest(t, form, { dpop: await proof() });
    expect(own.json().token_type).toBe('DPoP');
  });

  test('a proof and a dpop_jkt of another key: 400 invalid_dpop_proof, nothing stored', async () => {
    const other = await generateKeyPair('ES256', { extractable: true });
    const before = await t.db.selectFrom('oauth_pushed_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/par',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await proof({ htu: `${t.baseUrl}/oauth/par` }) },
      payload: new URLSearchParams({ client_id: spa.clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', dpop_jkt: await thumbprint(other),
        code_challenge: createHash('sha256').update(TEST_VERIFIER).digest('base64url'), code_challenge_method: 'S256' }).toString(),
    });
    expect([response.statusCode, response.json()]).toEqual([400, { error: 'invalid_dpop_proof', error_description: 'The DPoP proof\'s key does not match dpop_jkt.' }]);
    const after = await t.db.selectFrom('oauth_pushed_requests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe('dpop_bound_access_tokens (RFC 9449 §5.2)', () => {
  test('a token request without a proof is refused; with one, the token is bound', async () => {
    const bound = await makeClient(t, { confidential: false, dpopBoundAccessTokens: true });
    const code = await obtainCode(t, { clientId: bound.clientId, cookie: session.cookie, scope: 'openid' });
    const form = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: bound.clientId };
    const without = await tokenRequest(t, form);
    expect([without.statusCode, without.json()]).toEqual([400, { error: 'invalid_request', error_description: 'A DPoP proof is required for this client.' }]);
    const withProof = await tokenRequest(t, form, { dpop: await proof() });
    expect([withProof.statusCode, withProof.json().token_type]).toEqual([200, 'DPoP']);
  });
});

describe('introspection (RFC 9449 §6.2)', () => {
  test('a bound access token answers cnf and token_type DPoP, in JSON and as a JWT', async () => {
    const resourceServer = await makeClient(t);
    const auth = oauth.ClientSecretBasic(resourceServer.secret!);
    const tokens = await exchange(spa.clientId, oauth.DPoP({}, key));
    const jkt = await thumbprint(key);
    const answer = await oauth.processIntrospectionResponse(as, { client_id: resourceServer.clientId },
      await oauth.introspectionRequest(as, { client_id: resourceServer.clientId }, auth, tokens.access_token, insecure));
    expect(answer).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
    const signed = await oauth.processIntrospectionResponse(as, { client_id: resourceServer.clientId, introspection_signed_response_alg: 'RS256' },
      await oauth.introspectionRequest(as, { client_id: resourceServer.clientId }, auth, tokens.access_token, { ...insecure, requestJwtResponse: true }));
    expect(signed).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });
});
