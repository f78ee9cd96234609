/**
 * DPoP with server nonces required (DPOP_NONCE_REQUIRED=true, RFC 9449 §8,
 * §9): oauth4webapi learns the nonce from a `use_dpop_nonce` answer and
 * retries, at the token endpoint (400) and at userinfo (401 with the DPoP
 * challenge); the nonce is stateless, so an old one is answered with a new one.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, test } from 'vitest';
import { NONCE_BUCKET_SECONDS } from '../../src/oauth/dpop/dpop-nonce.ts';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp({ listening: true, env: { DPOP_NONCE_REQUIRED: 'true' } });
const insecure = { [oauth.allowInsecureRequests]: true } as const;
let session: TestSession;
let as: oauth.AuthorizationServer;
let spa: { clientId: string };
let key: { privateKey: CryptoKey; publicKey: CryptoKey };

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  spa = await makeClient(t, { confidential: false });
  key = await generateKeyPair('ES256', { extractable: true });
  const issuer = new URL(t.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});

/** Runs `request` and processes its answer; a use_dpop_nonce refusal (the handle now holds the nonce) is retried once. */
async function withNonceRetry<T>(request: () => Promise<Response>, process: (response: Response) => Promise<T>): Promise<{ result: T; retried: Response | undefined }> {
  const first = await request();
  const copy = first.clone();
  try {
    return { result: await process(first), retried: undefined };
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return { result: await process(await request()), retried: copy };
  }
}

describe('oauth4webapi with a server nonce', () => {
  test('token, refresh and userinfo: the first request learns the nonce, the others carry it', async () => {
    const client = { client_id: spa.clientId };
    const dpop = oauth.DPoP({}, key);
    const code = await obtainCode(t, { clientId: spa.clientId, cookie: session.cookie, scope: 'openid' });
    const callback = oauth.validateAuthResponse(as, client, new URL(`${CALLBACK}?${new URLSearchParams({ code, iss: t.baseUrl })}`), oauth.expectNoState);
    const { result: tokens, retried } = await withNonceRetry(
      () => oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, CALLBACK, TEST_VERIFIER, { ...insecure, DPoP: dpop }),
      (response) => oauth.processAuthorizationCodeResponse(as, client, response));
    expect(retried?.status).toBe(400);
    expect(await retried?.json()).toEqual({ error: 'use_dpop_nonce', error_description: 'Authorization server requires nonce in DPoP proof.' });
    expect(retried?.headers.get('dpop-nonce')).toMatch(/^[\w-]{43}$/);
    expect(tokens.token_type).toBe('dpop');

    const refreshed = await oauth.processRefreshTokenResponse(as, client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, { ...insecure, DPoP: dpop }));
    expect(refreshed.token_type).toBe('dpop');
    const claims = await oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck,
      await oauth.userInfoRequest(as, client, refreshed.access_token, { ...insecure, DPoP: dpop }));
    expect(claims.sub).toEqual(expect.any(String));

    // A new handle of the same key knows no nonce yet: userinfo asks for one with 401 and the DPoP challenge.
    const fresh = oauth.DPoP({}, key);
    const { result: again, retried: challenge } = await withNonceRetry(
      () => oauth.userInfoRequest(as, client, refreshed.access_token, { ...insecure, DPoP: fresh }),
      (response) => oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck, response));
    expect(challenge?.status).toBe(401);
    expect(challenge?.headers.get('www-authenticate')).toBe(
      'DPoP error="use_dpop_nonce", error_description="Authorization server requires nonce in DPoP proof.", algs="ES256 PS256 RS256 EdDSA Ed25519"');
    expect(challenge?.headers.get('dpop-nonce')).toMatch(/^[\w-]{43}$/);
    expect(again.sub).toBe(claims.sub);
  });
});

describe('stateless nonces', () => {
  const proof = async (nonce: string | undefined, iat: number) => new SignJWT({ jti: crypto.randomUUID(), htm: 'POST', htu: `${t.baseUrl}/oauth/token`, iat, nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) }).sign(key.privateKey);
  const refresh = (dpop: string) => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: 'x', client_id: spa.clientId }, { dpop });
  const seconds = () => Math.floor(t.clock.now().getTime() / 1000);

  test('a nonce is accepted in its bucket and the next, then answered with a new one; a made-up one never', async () => {
    const asked = await refresh(await proof(undefined, seconds()));
    const nonce = asked.headers['dpop-nonce'] as string;
    expect([asked.statusCode, asked.json().error]).toEqual([400, 'use_dpop_nonce']);
    expect((await refresh(await proof(nonce, seconds()))).json().error).toBe('invalid_grant');
    t.clock.advance(NONCE_BUCKET_SECONDS);
    const later = await refresh(await proof(nonce, seconds()));
    expect(later.json().error).toBe('invalid_grant'); // the previous bucket's nonce still counts…
    expect(later.headers['dpop-nonce']).not.toBe(nonce); // …and the client is told the current one
    t.clock.advance(NONCE_BUCKET_SECONDS);
    const expired = await refresh(await proof(nonce, seconds()));
    expect([expired.statusCode, expired.json()]).toEqual([400, { error: 'use_dpop_nonce', error_description: 'The DPoP proof\'s nonce is invalid or expired.' }]);
    expect(expired.headers['dpop-nonce']).toMatch(/^[\w-]{43}$/);
    const madeUp = await refresh(await proof('A'.repeat(43), seconds()));
    expect(madeUp.json().error).toBe('use_dpop_nonce');
  });
});
