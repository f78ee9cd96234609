/**
 * Signing algorithms per client (docs/oauth.md, "Signing algorithms"): RS256,
 * ES256 and EdDSA ID tokens and access tokens, checked by unmodified client
 * libraries (oauth4webapi validates the ID token against the JWKS, jose's
 * remote JWKS verifies the access token); one key per algorithm in the JWKS,
 * all rotated together with the overlap; no algorithm confusion.
 */
import { createHash, sign } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, test } from 'vitest';
import { SIGNING_ALGS, type SigningAlg } from '../../src/oauth/jose/algorithms.ts';
import { encodeSegment } from '../../src/oauth/jose/jws.ts';
import { loadSigningKeys, rotateSigningKey } from '../../src/oauth/keys/signing-keys.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser, CALLBACK, makeClient, obtainCode, tokenRequest, TEST_VERIFIER } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';

const t = useTestApp({ listening: true });
let user: TestUser;
let cookie: string;

beforeAll(async () => {
  user = await makeUser(t.db, { firstName: 'Frieda' });
  cookie = (await logInAs(t.app, user)).cookie;
});

/**
 * OpenID Connect Core §3.1.3.6: `at_hash` is the left half of the hash of the ID token's `alg`, SHA-512 for
 * EdDSA (Ed25519). oauth4webapi checks that hash only for c_hash and s_hash of hybrid responses, not
 * at_hash in the code flow, so the test computes it.
 */
const HASH_OF_ALG: Record<SigningAlg, string> = { RS256: 'sha256', ES256: 'sha256', EdDSA: 'sha512' };
function expectedAtHash(alg: SigningAlg, accessToken: string): string {
  const digest = createHash(HASH_OF_ALG[alg]).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

const jwksKeys = async () => (await t.app.inject({ url: '/.well-known/jwks.json' })).json<{ keys: JWK[] }>().keys;
const userinfo = (token: string) => t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${token}` } });

/** Tokens through inject, for a client of `alg`. */
async function tokensFor(client: { clientId: string; secret: string | null }) {
  const code = await obtainCode(t, { clientId: client.clientId, cookie, scope: 'openid' });
  const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! });
  expect(response.statusCode).toBe(200);
  return response.json<{ access_token: string; id_token: string }>();
}

describe('keys and discovery', () => {
  test('after the first start the JWKS holds one active key of each algorithm; discovery lists exactly those', async () => {
    const keys = await jwksKeys();
    expect(keys.map((k) => [k.alg, k.kty, k.crv, k.use])).toEqual(expect.arrayContaining([
      ['RS256', 'RSA', undefined, 'sig'], ['ES256', 'EC', 'P-256', 'sig'], ['EdDSA', 'OKP', 'Ed25519', 'sig'],
    ]));
    expect(keys).toHaveLength(3);
    const metadata = (await t.app.inject({ url: '/.well-known/openid-configuration' })).json();
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(metadata.introspection_signing_alg_values_supported).toEqual(['RS256']);
  });
});

describe.each(SIGNING_ALGS)('a client with id_token_signed_response_alg %s', (alg) => {
  test('oauth4webapi validates its ID token; jose verifies its access token from the remote JWKS; userinfo and refresh work', async () => {
    const registered = await makeClient(t, { idTokenSignedResponseAlg: alg });
    const options = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(t.baseUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
    const c: oauth.Client = { client_id: registered.clientId, id_token_signed_response_alg: alg };
    const auth = oauth.ClientSecretBasic(registered.secret!);
    const verifier = oauth.generateRandomCodeVerifier();
    const nonce = oauth.generateRandomNonce();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: registered.clientId, redirect_uri: CALLBACK, response_type: 'code', scope: 'openid', nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    }).toString();
    const callback = await new Browser(t.baseUrl).authorize(url.href, user);
    const params = oauth.validateAuthResponse(as, c, new URL(callback), oauth.expectNoState);
    const response = await oauth.authorizationCodeGrantRequest(as, c, auth, params, CALLBACK, verifier, options);
    const result = await oauth.processAuthorizationCodeResponse(as, c, response, { expectedNonce: nonce, requireIdToken: true });
    await oauth.validateApplicationLevelSignature(as, response, options);
    expect(oauth.getValidatedIdTokenClaims(result)!.sub).toBe(String(user.id));
    expect(oauth.getValidatedIdTokenClaims(result)!.at_hash).toBe(expectedAtHash(alg, result.access_token));
    expect(decodeProtectedHeader(result.id_token!)).toMatchObject({ alg, typ: 'JWT' });

    const jwks = createRemoteJWKSet(new URL(as.jwks_uri!));
    const { protectedHeader } = await jwtVerify(result.access_token, jwks, { issuer: t.baseUrl, audience: registered.clientId, typ: 'at+jwt', algorithms: [alg] });
    expect(protectedHeader.alg).toBe(alg);
    const info = await oauth.processUserInfoResponse(as, c, String(user.id), await oauth.userInfoRequest(as, c, result.access_token, options));
    expect(info.sub).toBe(String(user.id));

    const refreshed = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, auth, result.refresh_token!, options));
    expect(decodeProtectedHeader(refreshed.access_token).alg).toBe(alg);
    expect(decodeProtectedHeader(refreshed.id_token!).alg).toBe(alg);
    expect(oauth.getValidatedIdTokenClaims(refreshed)!.at_hash).toBe(expectedAtHash(alg, refreshed.access_token));
  });
});

describe('algorithm confusion', () => {
  /** A token of ours re-signed with one of our own private keys under a header naming `alg` and `kid`. */
  async function resigned(token: string, header: { alg: string; kid: string }, signWith: SigningAlg): Promise<string> {
    const key = (await loadSigningKeys(t.db, t.keys, t.clock.now())).find((k) => k.alg === signWith && k.retiredAt === null)!;
    const input = `${encodeSegment({ ...header, typ: 'at+jwt' })}.${encodeSegment(decodeJwt(token))}`;
    // Each signature is valid for the key under node:crypto's defaults (RSA PKCS#1, ECDSA DER, Ed25519): only the algorithm is wrong.
    const signature = sign(signWith === 'EdDSA' ? null : 'sha256', Buffer.from(input), key.privateKey);
    return `${input}.${signature.toString('base64url')}`;
  }

  test('a kid of one algorithm presented with another is refused at userinfo and introspection, whatever signed it', async () => {
    const client = await makeClient(t);
    const { access_token } = await tokensFor(client);
    expect((await userinfo(access_token)).statusCode).toBe(200);
    const kids = Object.fromEntries((await jwksKeys()).map((k) => [k.alg, k.kid!])) as Record<SigningAlg, string>;
    const forgeries = [
      await resigned(access_token, { alg: 'ES256', kid: kids.RS256 }, 'RS256'), // RSA key, RSA signature, header says ES256
      await resigned(access_token, { alg: 'RS256', kid: kids.ES256 }, 'ES256'), // EC key, (DER) ECDSA signature, header says RS256
      await resigned(access_token, { alg: 'EdDSA', kid: kids.RS256 }, 'RS256'),
      await resigned(access_token, { alg: 'ES256', kid: kids.EdDSA }, 'EdDSA'),
      await resigned(access_token, { alg: 'HS256', kid: kids.RS256 }, 'RS256'),
    ];
    for (const forged of forgeries) {
      const answer = await userinfo(forged);
      expect(answer.statusCode).toBe(401);
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
      const introspected = await t.app.inject({
        method: 'POST', url: '/oauth/introspect', payload: new URLSearchParams({ token: forged, client_id: client.clientId, client_secret: client.secret! }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(introspected.json()).toEqual({ active: false });
    }
  });
});

describe('keys rotate', () => {
  test('rotates every algorithm\'s key; tokens of the old keys still verify during the overlap, then the old keys leave', async () => {
    const clients = await Promise.all(SIGNING_ALGS.map((alg) => makeClient(t, { idTokenSignedResponseAlg: alg })));
    const before = await Promise.all(clients.map(tokensFor));
    const oldKids = (await jwksKeys()).map((k) => k.kid);
    const { activated, retired } = await rotateSigningKey(t.db, t.keys, 2048, t.clock.now);
    expect(retired.sort()).toEqual([...oldKids].sort());
    t.clock.advance(61); // instances sign with the new keys after their next reload, at most a minute
    expect((await jwksKeys()).map((k) => k.kid).sort()).toEqual([...oldKids, ...Object.values(activated)].sort());
    const after = await Promise.all(clients.map(tokensFor));
    const jwks = createRemoteJWKSet(new URL(`${t.baseUrl}/.well-known/jwks.json`));
    for (const [i, alg] of SIGNING_ALGS.entries()) {
      expect(decodeProtectedHeader(after[i]!.access_token)).toMatchObject({ alg, kid: activated[alg] });
      expect(decodeProtectedHeader(after[i]!.id_token)).toMatchObject({ alg, kid: activated[alg] });
      for (const token of [before[i]!.access_token, after[i]!.access_token]) {
        await jwtVerify(token, jwks, { issuer: t.baseUrl, algorithms: [alg], currentDate: t.clock.now() });
        expect((await userinfo(token)).statusCode).toBe(200);
      }
    }
    t.clock.advance(3600 + 600);
    cookie = (await logInAs(t.app, user)).cookie;
    expect((await jwksKeys()).map((k) => k.kid).sort()).toEqual(Object.values(activated).sort());
  });
});
