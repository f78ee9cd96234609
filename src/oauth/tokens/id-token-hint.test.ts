/** id_token_hint (RP-Initiated Logout 1.0 §2): ours, whatever its expiry; nothing else. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { encodeSegment } from '../jose/jws.ts';
import { signerOf } from '../keys/key-store.ts';
import { signIdToken } from './id-token.ts';
import { verifyIdTokenHint } from './id-token-hint.ts';

const ISSUER = 'https://id.example';
const ours = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keys = { verificationKey: async (kid: string | undefined): Promise<KeyObject | undefined> => (kid === 'k1' ? ours.publicKey : undefined) };
const claims = { sub: '42', clientId: 'wiki', authTime: 1_000, amr: ['pwd'], nonce: null, sid: 'sid-1', accessToken: 'at' };

const idToken = (privateKey = ours.privateKey, issuer = ISSUER, iat = 1_000) => signIdToken(signerOf({ kid: 'k1', privateKey }), issuer, iat, claims);
const withHeader = (token: string, header: object) => [encodeSegment(header), ...token.split('.').slice(1)].join('.');
const withPayload = async (payload: object) => {
  const signer = signerOf({ kid: 'k1', privateKey: ours.privateKey });
  return signer.sign(signer.idTokenHeader, payload);
};

describe('id_token_hint', () => {
  test('an ID token of ours, long expired, names client, member and session', async () => {
    expect(await verifyIdTokenHint(keys, ISSUER, await idToken())).toEqual({ clientId: 'wiki', sub: '42', sid: 'sid-1' });
  });

  test.each([['ES256', 'ec'], ['EdDSA', 'ed25519']] as const)('an %s ID token of ours (the client\'s signing algorithm) is accepted too', async (alg, type) => {
    const pair = type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    const token = await signIdToken(signerOf({ kid: 'k3', privateKey: pair.privateKey }), ISSUER, 1_000, claims);
    const withKey = { verificationKey: async (kid: string | undefined) => (kid === 'k3' ? pair.publicKey : undefined) };
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg });
    expect(await verifyIdTokenHint(withKey, ISSUER, token)).toEqual({ clientId: 'wiki', sub: '42', sid: 'sid-1' });
    expect(await verifyIdTokenHint(withKey, ISSUER, withHeader(token, { alg: 'RS256', typ: 'JWT', kid: 'k3' }))).toBeUndefined();
  });

  test('aud as a one-element array; no sid', async () => {
    expect(await verifyIdTokenHint(keys, ISSUER, await withPayload({ iss: ISSUER, sub: '7', aud: ['wiki'] }))).toEqual({ clientId: 'wiki', sub: '7', sid: undefined });
  });

  test.each([
    ['signed by another key under our kid', async () => idToken(other.privateKey)],
    ['of another issuer', async () => idToken(ours.privateKey, 'https://evil.example')],
    ['alg none without signature', async () => `${encodeSegment({ alg: 'none', typ: 'JWT' })}.${(await idToken()).split('.')[1]}.`],
    ['alg none with our signature', async () => withHeader(await idToken(), { alg: 'none', typ: 'JWT', kid: 'k1' })],
    ['HS256', async () => withHeader(await idToken(), { alg: 'HS256', typ: 'JWT', kid: 'k1' })],
    ['an access token (typ at+jwt)', async () => withHeader(await idToken(), { alg: 'RS256', typ: 'at+jwt', kid: 'k1' })],
    ['with an unknown kid', async () => withHeader(await idToken(), { alg: 'RS256', typ: 'JWT', kid: 'k2' })],
    ['two audiences', async () => withPayload({ iss: ISSUER, sub: '7', aud: ['wiki', 'chat'] })],
    ['without sub', async () => withPayload({ iss: ISSUER, aud: 'wiki' })],
    ['not a JWS', async () => 'not.a.token'],
    ['far too long', async () => `${await idToken()}${'A'.repeat(9000)}`],
  ])('%s is refused', async (_name, make) => {
    expect(await verifyIdTokenHint(keys, ISSUER, await make())).toBeUndefined();
  });
});
