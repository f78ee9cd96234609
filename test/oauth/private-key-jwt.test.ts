/**
 * private_key_jwt client authentication (RFC 7523, OpenID Connect Core 1.0 §9)
 * driven by oauth4webapi over real HTTP, and the assertions it must refuse.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp({ listening: true });
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let session: TestSession;
let as: oauth.AuthorizationServer;
let key: { privateKey: CryptoKey; publicKey: CryptoKey };
let clientId: string;

async function publicJwk(publicKey: CryptoKey, kid: string) {
  return { ...(await exportJWK(publicKey)), kid };
}

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  key = await generateKeyPair('ES256', { extractable: true });
  ({ clientId } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [await publicJwk(key.publicKey, 'k1')] } }));
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});

async function exchangeCode(id: string, privateKey: CryptoKey, kid: string) {
  const code = await obtainCode(t, { clientId: id, cookie: session.cookie, scope: 'openid' });
  const params = new URLSearchParams({ code, iss: t.baseUrl });
  const callback = oauth.validateAuthResponse(as, { client_id: id }, new URL(`${CALLBACK}?${params}`), oauth.expectNoState);
  const response = await oauth.authorizationCodeGrantRequest(as, { client_id: id }, oauth.PrivateKeyJwt({ key: privateKey, kid }), callback, CALLBACK, TEST_VERIFIER, insecure);
  return oauth.processAuthorizationCodeResponse(as, { client_id: id }, response);
}

function assertion(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'ES256', kid: 'k1' }, signer = key.privateKey) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: clientId, sub: clientId, aud: `${t.baseUrl}/oauth/token`, jti: crypto.randomUUID(), iat: now, exp: now + 60, ...claims })
    .setProtectedHeader(header as { alg: string }).sign(signer);
}

async function tokenWith(clientAssertion: string, extra: Record<string, string> = {}) {
  return tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x', client_assertion_type: BEARER, client_assertion: clientAssertion, ...extra });
}

describe('oauth4webapi with PrivateKeyJwt', () => {
  test('exchanges a code, refreshes, introspects and revokes', async () => {
    const auth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: 'k1' });
    const tokens = await exchangeCode(clientId, key.privateKey, 'k1');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await oauth.processRefreshTokenResponse(as, { client_id: clientId },
      await oauth.refreshTokenGrantRequest(as, { client_id: clientId }, auth, tokens.refresh_token!, insecure));
    const active = await oauth.processIntrospectionResponse(as, { client_id: clientId },
      await oauth.introspectionRequest(as, { client_id: clientId }, auth, refreshed.access_token, insecure));
    expect(active).toMatchObject({ active: true, client_id: clientId });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, { client_id: clientId }, auth, refreshed.refresh_token!, insecure));
    const after = await oauth.processIntrospectionResponse(as, { client_id: clientId },
      await oauth.introspectionRequest(as, { client_id: clientId }, auth, refreshed.access_token, insecure));
    expect(after).toEqual({ active: false });
  });
});

describe('refused assertions answer 401 invalid_client', () => {
  async function expectRefused(response: Awaited<ReturnType<typeof tokenWith>>) {
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: 'Unknown client or wrong credentials.' });
  }

  test('a good assertion reaches the grant (which refuses the bogus refresh token)', async () => {
    const response = await tokenWith(await assertion({}));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('the same jti twice', async () => {
    const once = await assertion({ aud: t.baseUrl });
    expect((await tokenWith(once)).statusCode).toBe(400);
    await expectRefused(await tokenWith(once));
  });

  test('wrong audience, expired, exp too far ahead, no jti', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await tokenWith(await assertion({ aud: `${t.baseUrl}/oauth/revoke` })));
    await expectRefused(await tokenWith(await assertion({ iat: now - 600, exp: now - 300 })));
    await expectRefused(await tokenWith(await assertion({ exp: now + 3600 })));
    await expectRefused(await tokenWith(await assertion({ jti: undefined })));
  });

  test('an aud list naming another audience besides ours (the audience injection of draft-ietf-oauth-rfc7523bis); one naming only ours passes', async () => {
    await expectRefused(await tokenWith(await assertion({ aud: ['https://evil.example', t.baseUrl] })));
    await expectRefused(await tokenWith(await assertion({ aud: [`${t.baseUrl}/oauth/token`, 'https://attacker.example/token'] })));
    expect((await tokenWith(await assertion({ aud: [t.baseUrl, `${t.baseUrl}/oauth/token`] }))).statusCode).toBe(400);
  });

  test('typ: another JWT\'s type is refused; client-authentication+jwt names the issuer as its only audience (RFC 8725 §3.11)', async () => {
    const typed = (typ: string) => ({ alg: 'ES256', kid: 'k1', typ });
    for (const typ of ['dpop+jwt', 'at+jwt', 'application/logout+jwt', 'JOSE']) {
      await expectRefused(await tokenWith(await assertion({}, typed(typ))));
    }
    await expectRefused(await tokenWith(await assertion({}, typed('client-authentication+jwt'))));
    await expectRefused(await tokenWith(await assertion({ aud: [t.baseUrl] }, typed('client-authentication+jwt'))));
    for (const [typ, aud] of [['client-authentication+jwt', t.baseUrl], ['application/client-authentication+jwt', t.baseUrl], ['JWT', `${t.baseUrl}/oauth/token`]] as const) {
      expect((await tokenWith(await assertion({ aud }, typed(typ)))).statusCode, typ).toBe(400);
    }
  });

  test('signed by an unregistered key, or with alg none', async () => {
    const other = await generateKeyPair('ES256');
    await expectRefused(await tokenWith(await assertion({}, { alg: 'ES256', kid: 'k1' }, other.privateKey)));
    const body = Buffer.from(JSON.stringify({ iss: clientId, sub: clientId, aud: t.baseUrl, jti: 'n', exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url');
    await expectRefused(await tokenWith(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${body}.`));
  });

  test('a secret from a private_key_jwt client, and an assertion from a secret client', async () => {
    await expectRefused(await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId, client_secret: 'guess' }));
    const secretClient = await makeClient(t);
    const now = Math.floor(Date.now() / 1000);
    const foreign = await new SignJWT({ iss: secretClient.clientId, sub: secretClient.clientId, aud: t.baseUrl, jti: 'j', exp: now + 60 })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(key.privateKey);
    await expectRefused(await tokenWith(foreign));
  });
});

describe('an Ed25519 key answers to both names of its algorithm (RFC 9864)', () => {
  test('registered with alg EdDSA or Ed25519, it verifies assertions signed as EdDSA and as Ed25519; an ES256 key\'s alg still binds', async () => {
    const ed = await generateKeyPair('Ed25519', { extractable: true });
    for (const registered of ['EdDSA', 'Ed25519']) {
      const { clientId: id } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...(await publicJwk(ed.publicKey, 'ed')), alg: registered }] } });
      for (const alg of ['EdDSA', 'Ed25519']) {
        const now = Math.floor(Date.now() / 1000);
        const signed = await new SignJWT({ iss: id, sub: id, aud: t.baseUrl, jti: crypto.randomUUID(), exp: now + 60 }).setProtectedHeader({ alg, kid: 'ed' }).sign(ed.privateKey);
        const response = await tokenWith(signed);
        expect(response.statusCode, `${registered} key, ${alg} assertion`).toBe(400);
        expect(response.json().error).toBe('invalid_grant');
      }
    }
    const { clientId: es } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...(await publicJwk(key.publicKey, 'es')), alg: 'ES256' }] } });
    const now = Math.floor(Date.now() / 1000);
    const underAnotherAlg = await new SignJWT({ iss: es, sub: es, aud: t.baseUrl, jti: crypto.randomUUID(), exp: now + 60 }).setProtectedHeader({ alg: 'EdDSA', kid: 'es' }).sign(ed.privateKey);
    expect((await tokenWith(underAnotherAlg)).statusCode).toBe(401);
  });
});

describe('the audiences each endpoint accepts (RFC 9126 §2, OpenID Connect Core 1.0 §9)', () => {
  const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
  const PAR = { response_type: 'code', redirect_uri: CALLBACK, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbvG3GI_zONE', code_challenge_method: 'S256' };
  const endpoints: [path: string, form: Record<string, string>, status: number][] = [
    ['/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x' }, 400],
    ['/oauth/par', PAR, 201],
    ['/oauth/introspect', { token: 'x' }, 200],
    ['/oauth/revoke', { token: 'x' }, 200],
    ['/oauth/device_authorization', { scope: 'openid' }, 200],
  ];
  let deviceClientId: string;

  beforeAll(async () => {
    ({ clientId: deviceClientId } = await makeClient(t, {
      tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [await publicJwk(key.publicKey, 'k1')] },
      grantTypes: ['authorization_code', 'refresh_token', DEVICE_GRANT],
    }));
  });

  function post(path: string, form: Record<string, string>, aud: string) {
    return assertion({ iss: deviceClientId, sub: deviceClientId, aud }).then((clientAssertion) => t.app.inject({
      method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...form, client_assertion_type: BEARER, client_assertion: clientAssertion }).toString(),
    }));
  }

  test.each(endpoints)('%s accepts the issuer, the token endpoint and its own URL', async (path, form, status) => {
    for (const aud of [t.baseUrl, `${t.baseUrl}/oauth/token`, `${t.baseUrl}${path}`]) {
      const response = await post(path, form, aud);
      expect({ aud, status: response.statusCode }).toEqual({ aud, status });
    }
  });

  test.each(endpoints)('%s refuses another endpoint\'s URL', async (path, form) => {
    const response = await post(path, form, `${t.baseUrl}/oauth/userinfo`);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: 'Unknown client or wrong credentials.' });
  });
});

describe('keys from a jwks_uri (loopback http outside production)', () => {
  let server: Server;
  let published: unknown[] = [];
  let fetches = 0;
  let failing = false;

  /** Whether an assertion of `id` (on the app's clock) passes client authentication: the grant then refuses the bogus refresh token. */
  async function authenticates(id: string, privateKey: CryptoKey, kid: string): Promise<boolean> {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const signed = await new SignJWT({ iss: id, sub: id, aud: t.baseUrl, jti: crypto.randomUUID(), iat: now, exp: now + 60 })
      .setProtectedHeader({ alg: 'ES256', kid }).sign(privateKey);
    const status = (await tokenWith(signed)).statusCode;
    expect([400, 401]).toContain(status);
    return status === 400;
  }

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches += 1;
      if (failing) response.writeHead(503).end();
      else response.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('a rotated key (unknown kid) makes the server fetch the set again', { timeout: 60_000 }, async () => {
    const first = await generateKeyPair('RS256', { extractable: true });
    const second = await generateKeyPair('ES256', { extractable: true });
    published = [await publicJwk(first.publicKey, 'old')];
    const { clientId: id } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks` });
    await exchangeCode(id, first.privateKey, 'old');
    expect(fetches).toBe(1);
    published = [await publicJwk(second.publicKey, 'new')];
    // At most one refetch per 5 seconds per client: the app's clock moved past that makes the refetch due.
    t.clock.advance(6);
    await exchangeCode(id, second.privateKey, 'new');
    expect(fetches).toBe(2);
  });

  test('a failed fetch keeps the last set in use and is tried again after seconds, not after the cache\'s minutes', { timeout: 60_000 }, async () => {
    const first = await generateKeyPair('ES256', { extractable: true });
    const second = await generateKeyPair('ES256', { extractable: true });
    published = [await publicJwk(first.publicKey, 'a')];
    const port = (server.address() as AddressInfo).port;
    const { clientId: id } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: `http://127.0.0.1:${port}/jwks?stale` });
    fetches = 0;
    expect(await authenticates(id, first.privateKey, 'a')).toBe(true);
    // The set's five minutes over, the key host answers 503: the last set stands in.
    failing = true;
    t.clock.advance(301);
    expect(await authenticates(id, first.privateKey, 'a')).toBe(true);
    expect(fetches).toBe(2);
    // Back, with a rotated key: asked again seconds later, not five minutes later.
    failing = false;
    published = [await publicJwk(second.publicKey, 'b')];
    t.clock.advance(6);
    expect(await authenticates(id, second.privateKey, 'b')).toBe(true);
    expect(fetches).toBe(3);

    // A client whose host fails at its first fetch: refused, and let in seconds after the host is back.
    const { clientId: late } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: `http://127.0.0.1:${port}/jwks?late` });
    failing = true;
    expect(await authenticates(late, second.privateKey, 'b')).toBe(false);
    failing = false;
    expect(await authenticates(late, second.privateKey, 'b')).toBe(false);
    t.clock.advance(6);
    expect(await authenticates(late, second.privateKey, 'b')).toBe(true);

    // A host down for longer than an hour after the last good set: that set is no longer used.
    failing = true;
    t.clock.advance(3601);
    expect(await authenticates(late, second.privateKey, 'b')).toBe(false);
    failing = false;
  });
});

test('discovery lists private_key_jwt and the assertion algorithms', async () => {
  const document = (await t.app.inject({ url: '/.well-known/openid-configuration' })).json() as Record<string, unknown>;
  expect(document.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none']);
  expect(document.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'private_key_jwt']);
  for (const name of ['token', 'revocation', 'introspection']) {
    expect(document[`${name}_endpoint_auth_signing_alg_values_supported`]).toEqual(['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519']);
  }
});
