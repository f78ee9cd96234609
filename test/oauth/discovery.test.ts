/**
 * Discovery and JWKS per SPEC §5.5, issuer identity, key
 * rotation with overlap (old tokens still verify, new ones carry the new kid,
 * the old key leaves the JWKS once its tokens have expired), and the purge.
 */
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { beforeAll, describe, expect, test } from 'vitest';
import { rotateSigningKey } from '../../src/oauth/keys/signing-keys.ts';
import { purgeExpiredOAuthRows } from '../../src/oauth/oauth.purge.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';

const ISSUER = 'https://auth.example.org';
const t = useTestApp({ env: { PUBLIC_URL: `${ISSUER}/` } });
let client: { clientId: string; secret: string };
let cookie: string;

beforeAll(async () => {
  // A trailing slash in PUBLIC_URL must not leak into the issuer.
  client = (await makeClient(t)) as { clientId: string; secret: string };
  cookie = (await logInAs(t.app, await makeUser(t.db))).cookie;
});

async function tokens(): Promise<{ access_token: string; id_token: string; refresh_token: string; iss: string }> {
  const query = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSW-cM1Y', code_challenge_method: 'S256' });
  const consent = await t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}&prompt=none`, headers: { cookie } });
  const iss = new URL(consent.headers.location as string).searchParams.get('iss')!;
  const code = await obtainCode(t, { clientId: client.clientId, cookie });
  const body = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret })).json();
  return { ...body, iss };
}

function jwks() {
  return t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
}

describe('discovery', () => {
  test('the provider metadata of SPEC §5.5, cacheable', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    expect(response.headers['cache-control']).toMatch(/public, max-age=\d+/);
    expect(response.json()).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      userinfo_endpoint: `${ISSUER}/oauth/userinfo`,
      jwks_uri: `${ISSUER}/.well-known/jwks.json`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      scopes_supported: ['openid', 'profile', 'email', 'regions', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      device_authorization_endpoint: `${ISSUER}/oauth/device_authorization`,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256', 'EdDSA'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      code_challenge_methods_supported: ['S256'],
      dpop_signing_alg_values_supported: ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(response.json().claims_supported).toEqual(expect.arrayContaining(['sub', 'preferred_username', 'email', 'region_ids', 'region_ambassador', 'auth_time', 'nonce']));
  });

  test('RFC 8414 clients find the same metadata at /.well-known/oauth-authorization-server', async () => {
    const oidc = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    const oauth2 = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' });
    expect(oauth2.statusCode).toBe(200);
    expect(oauth2.headers['content-type']).toContain('application/json');
    expect(oauth2.body).toBe(oidc.body);
  });

  test('the issuer is byte-identical in discovery, ID token, access token and the iss response parameter', async () => {
    const discovered = (await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json().issuer;
    const issued = await tokens();
    expect(discovered).toBe(ISSUER);
    expect(decodeJwt(issued.id_token).iss).toBe(discovered);
    expect(decodeJwt(issued.access_token).iss).toBe(discovered);
    expect(issued.iss).toBe(discovered);
  });
});

describe('JWKS and key rotation', () => {
  test('one key per algorithm, each with a unique kid (its RFC 7638 thumbprint), use sig, its alg, and no private parts', async () => {
    const response = await jwks();
    // No longer than client libraries wait before refetching on an unknown kid (60 s).
    expect(response.headers['cache-control']).toBe('public, max-age=10');
    const { keys } = response.json<{ keys: JWK[] }>();
    expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']);
    const members = { RS256: ['alg', 'e', 'kid', 'kty', 'n', 'use'], ES256: ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'], EdDSA: ['alg', 'crv', 'kid', 'kty', 'use', 'x'] };
    const types = { RS256: { kty: 'RSA' }, ES256: { kty: 'EC', crv: 'P-256' }, EdDSA: { kty: 'OKP', crv: 'Ed25519' } };
    for (const key of keys) {
      const alg = key.alg as keyof typeof members;
      expect(key).toMatchObject({ ...types[alg], use: 'sig', alg });
      expect(Object.keys(key).sort()).toEqual(members[alg]);
      expect(key.kid).toBe(await calculateJwkThumbprint(key));
    }
    expect(new Set(keys.map((k) => k.kid)).size).toBe(keys.length);
  });

  test('rotation publishes the new key, signs with it, keeps the old one until its tokens have expired', async () => {
    const before = await tokens();
    const oldKid = decodeProtectedHeader(before.access_token).kid!;
    const { activated: { RS256: newKid } } = await rotateSigningKey(t.db, t.keys, 2048, t.clock.now);
    // Rotated by another process (the CLI): the JWKS of every instance lists the key within seconds …
    t.clock.advance(6);
    expect((await jwks()).json().keys.map((k: { kid: string }) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    t.clock.advance(55); // … and instances sign with it after their next key reload, at most a minute

    const kids = (await jwks()).json().keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
    const after = await tokens();
    expect(decodeProtectedHeader(after.access_token).kid).toBe(newKid);
    expect(decodeProtectedHeader(after.id_token).kid).toBe(newKid);

    const userinfo = (token: string) => t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization: `Bearer ${token}` } });
    expect((await userinfo(before.access_token)).statusCode).toBe(200);
    expect((await userinfo(after.access_token)).statusCode).toBe(200);

    t.clock.advance(3600 + 600);
    cookie = (await logInAs(t.app, await makeUser(t.db))).cookie;
    const later = (await jwks()).json().keys.filter((k: JWK) => k.alg === 'RS256').map((k: { kid: string }) => k.kid);
    expect(later).toEqual([newKid]);
    expect((await userinfo((await tokens()).access_token)).statusCode).toBe(200);
  });
});

describe('purge', () => {
  test('expired codes, grants and retired keys are deleted', async () => {
    await tokens();
    t.clock.advance(31 * 24 * 3600 + 60);
    await purgeExpiredOAuthRows(t.db, t.clock.now);
    const count = async (table: 'oauth_codes' | 'oauth_grants' | 'oauth_refresh_tokens') =>
      Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('oauth_codes')).toBe(0);
    expect(await count('oauth_grants')).toBe(0);
    expect(await count('oauth_refresh_tokens')).toBe(0);
    const keys = await t.db.selectFrom('oauth_signing_keys').select('alg').execute();
    expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']); // the active key of each algorithm
  });
});
