/**
 * openid-client v6 against the real server: DPoP through `getDPoPHandle`
 * (code exchange, userinfo, refresh) and private_key_jwt client
 * authentication through `PrivateKeyJwt`, with an Ed25519 key (openid-client
 * signs with the fully-specified `alg: Ed25519`, RFC 9864).
 */
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp({ listening: true });
const insecure = { execute: [client.allowInsecureRequests] };
let session: TestSession;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
});

/** The callback URL the browser would bring back (obtainCode sends state "st"). */
async function callbackUrl(clientId: string): Promise<URL> {
  const code = await obtainCode(t, { clientId, cookie: session.cookie, scope: 'openid profile' });
  return new URL(`${CALLBACK}?${new URLSearchParams({ code, state: 'st', iss: t.baseUrl })}`);
}

describe('openid-client v6', () => {
  test('DPoP with getDPoPHandle: bound tokens, userinfo and refresh', async () => {
    const { clientId } = await makeClient(t, { confidential: false });
    const config = await client.discovery(new URL(t.baseUrl), clientId, undefined, client.None(), insecure);
    const keyPair = await client.randomDPoPKeyPair('ES256');
    const DPoP = client.getDPoPHandle(config, keyPair);
    const tokens = await client.authorizationCodeGrant(config, await callbackUrl(clientId), { pkceCodeVerifier: TEST_VERIFIER, expectedState: 'st' }, undefined, { DPoP });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey), 'sha256');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const claims = await client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck, { DPoP });
    expect(claims.sub).toBe(decodeJwt(tokens.access_token).sub);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
    // Without the handle the bound refresh token is refused.
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('private_key_jwt with PrivateKeyJwt and an Ed25519 key: code exchange, refresh, introspection', async () => {
    const { privateKey, publicKey } = await generateKeyPair('Ed25519', { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'ed1' };
    const { clientId } = await makeClient(t, { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    let assertionAlg: string | undefined;
    const config = await client.discovery(new URL(t.baseUrl), clientId, undefined, client.PrivateKeyJwt({ key: privateKey, kid: 'ed1' }, {
      [client.modifyAssertion]: (header) => { assertionAlg = String(header.alg); },
    }), insecure);
    const tokens = await client.authorizationCodeGrant(config, await callbackUrl(clientId), { pkceCodeVerifier: TEST_VERIFIER, expectedState: 'st' });
    expect(assertionAlg).toBe('Ed25519');
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    const introspected = await client.tokenIntrospection(config, refreshed.access_token);
    expect(introspected).toMatchObject({ active: true, client_id: clientId, token_type: 'Bearer' });
  });
});
