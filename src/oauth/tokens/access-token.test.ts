/** JWT access tokens (RFC 9068, SPEC §5.3–5.4): claims, lifetime, format, and every refusal of verification. */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { encodeSegment, signRs256 } from '../jose/jws.ts';
import { signerOf } from '../keys/key-store.ts';
import { signAccessToken, verifyAccessToken } from './access-token.ts';

const ISSUER = 'https://id.example';
const NOW = 1_780_000_000;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = signerOf({ kid: 'k1', privateKey });
const keys = { verificationKey: async (kid: string | undefined) => (kid === 'k1' ? publicKey : undefined) };
const CLAIMS = { sub: '42', clientId: 'wiki', scope: 'openid email', authTime: NOW - 100, grantId: 7 };
const at = (seconds: number) => new Date(seconds * 1000);

function decode(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
  return { header: header!, payload: payload! };
}

/** A token signed by our key with this header and these claims. */
function forge(header: object, payload: object): Promise<string> {
  return signRs256(encodeSegment(header), payload, privateKey);
}

describe('access tokens', () => {
  test('RS256 with typ at+jwt and kid; iss, sub, aud = client_id, scope, auth_time, one hour, jti naming the grant', async () => {
    const token = await signAccessToken(signer, ISSUER, NOW, CLAIMS);
    const { header, payload } = decode(token);
    expect(header).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' });
    expect(payload).toEqual({
      iss: ISSUER, sub: '42', aud: 'wiki', client_id: 'wiki', scope: 'openid email', auth_time: NOW - 100, iat: NOW, exp: NOW + 3600, jti: expect.stringMatching(/^7\.[A-Za-z0-9_-]{16}$/),
    });
    expect(decode(await signAccessToken(signer, ISSUER, NOW, CLAIMS)).payload.jti).not.toBe(payload.jti);
  });

  test('verifies until, not at, its expiry', async () => {
    const token = await signAccessToken(signer, ISSUER, NOW, CLAIMS);
    expect(await verifyAccessToken(keys, ISSUER, token, at(NOW + 3599))).toEqual({ ...CLAIMS, exp: NOW + 3600, iat: NOW, jti: decode(token).payload.jti });
    await expect(verifyAccessToken(keys, ISSUER, token, at(NOW + 3600))).rejects.toMatchObject({ error: 'invalid_token', description: 'The access token has expired.' });
  });

  const valid = { iss: ISSUER, sub: '42', client_id: 'wiki', scope: 'openid', iat: NOW, exp: NOW + 3600, jti: '7.x' };
  test.each([
    ['another issuer', { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { ...valid, iss: 'https://other.example' }, 'The access token is invalid.'],
    ['an ID token (typ JWT)', { alg: 'RS256', typ: 'JWT', kid: 'k1' }, valid, 'The access token is invalid.'],
    ['a crit header', { alg: 'RS256', typ: 'at+jwt', kid: 'k1', crit: ['x'], x: 1 }, valid, 'The access token is invalid.'],
    ['an unknown kid', { alg: 'RS256', typ: 'at+jwt', kid: 'k2' }, valid, 'The access token was not signed by a key of this server.'],
    ['nbf in the future', { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { ...valid, nbf: NOW + 60 }, 'The access token is invalid.'],
    ['a non-numeric iat', { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { ...valid, iat: 'now' }, 'The access token is invalid.'],
    ['no scope', { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { ...valid, scope: undefined }, 'The access token is invalid.'],
    ['a jti naming no grant', { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { ...valid, jti: 'abc.x' }, 'The access token is not one of this server.'],
  ])('refuses %s', async (_name, header, payload, description) => {
    await expect(verifyAccessToken(keys, ISSUER, await forge(header, payload), at(NOW))).rejects.toMatchObject({ error: 'invalid_token', description });
  });

  test.each([['garbage', 'not.a.jwt'], ['an overlong token', 'a'.repeat(8193)]])('refuses %s as malformed', async (_name, token) => {
    await expect(verifyAccessToken(keys, ISSUER, token, at(NOW))).rejects.toMatchObject({ description: 'The access token is malformed.' });
  });

  test('refuses a token whose signature does not match', async () => {
    const token = await signAccessToken(signer, ISSUER, NOW, CLAIMS);
    const [header, , signature] = token.split('.');
    const altered = `${header}.${encodeSegment({ ...decode(token).payload, sub: '43' })}.${signature}`;
    await expect(verifyAccessToken(keys, ISSUER, altered, at(NOW))).rejects.toMatchObject({ description: 'The access token is invalid.' });
  });
});
