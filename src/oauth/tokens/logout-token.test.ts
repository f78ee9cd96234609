/** Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4), verified as a receiver would with jose. */
import { generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, exportJWK, jwtVerify } from 'jose';
import { describe, expect, test } from 'vitest';
import { signerOf } from '../keys/key-store.ts';
import { BACKCHANNEL_LOGOUT_EVENT, signLogoutToken } from './logout-token.ts';

const NOW = Math.floor(Date.now() / 1000);
const ISSUER = 'https://id.example';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = signerOf({ kid: 'k1', privateKey });
const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });

function verifyAsReceiver(token: string) {
  return jwtVerify(token, jwks, { issuer: ISSUER, audience: 'wiki', typ: 'logout+jwt', algorithms: ['RS256'], maxTokenAge: '2 minutes' });
}

describe('logout tokens', () => {
  test('RS256, typ logout+jwt, kid; iss, aud, iat, exp two minutes later, jti, the back-channel event, sub and sid; no nonce', async () => {
    const token = await signLogoutToken(signer, ISSUER, NOW, { clientId: 'wiki', sub: '42', sid: 'session-1' });
    const { payload, protectedHeader } = await verifyAsReceiver(token);
    expect(protectedHeader).toStrictEqual({ alg: 'RS256', typ: 'logout+jwt', kid: 'k1' });
    expect(payload).toStrictEqual({
      iss: ISSUER, sub: '42', aud: 'wiki', iat: NOW, exp: NOW + 120, jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, sid: 'session-1',
    });
    expect(payload).not.toHaveProperty('nonce');
  });

  test('sub only, sid only', async () => {
    const subOnly = await verifyAsReceiver(await signLogoutToken(signer, ISSUER, NOW, { clientId: 'wiki', sub: '42', sid: null }));
    expect(subOnly.payload.sub).toBe('42');
    expect(subOnly.payload).not.toHaveProperty('sid');
    const sidOnly = await verifyAsReceiver(await signLogoutToken(signer, ISSUER, NOW, { clientId: 'wiki', sub: null, sid: 's' }));
    expect(sidOnly.payload.sid).toBe('s');
    expect(sidOnly.payload).not.toHaveProperty('sub');
  });

  test('every token has its own jti', async () => {
    const claims = { clientId: 'wiki', sub: '42', sid: 's' };
    const [a, b] = await Promise.all([signLogoutToken(signer, ISSUER, NOW, claims), signLogoutToken(signer, ISSUER, NOW, claims)]);
    expect((await verifyAsReceiver(a!)).payload.jti).not.toBe((await verifyAsReceiver(b!)).payload.jti);
  });

  test('neither sub nor sid is refused', () => {
    expect(() => signLogoutToken(signer, ISSUER, NOW, { clientId: 'wiki', sub: null, sid: null })).toThrow(/sub, a sid or both/);
  });

  test('an ID token-typed verifier refuses it (typ is checked)', async () => {
    const token = await signLogoutToken(signer, ISSUER, NOW, { clientId: 'wiki', sub: '42', sid: null });
    await expect(jwtVerify(token, jwks, { issuer: ISSUER, audience: 'wiki', typ: 'JWT' })).rejects.toThrow(/typ/);
  });
});
