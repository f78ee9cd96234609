import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import type { FieldError } from '../../invalid-input.ts';
import { validateKeySettings } from './client-key-settings.ts';

const jwkOf = (pair: { publicKey: KeyObject }) => pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
const rsa2048 = jwkOf(generateKeyPairSync('rsa', { modulusLength: 2048 }));
const p256 = jwkOf(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
const ed25519 = jwkOf(generateKeyPairSync('ed25519'));

function problems(keys: unknown[]): string[] {
  const errors: FieldError[] = [];
  validateKeySettings({ confidential: true, tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys } }, errors);
  return errors.map((e) => `${e.field}: ${e.message}`);
}

describe('registered public keys of a private_key_jwt client', () => {
  test('keys an accepted algorithm verifies with are taken, with or without alg, use and key_ops', () => {
    expect(problems([rsa2048, { ...rsa2048, alg: 'PS256', use: 'sig' }, { ...p256, alg: 'ES256', key_ops: ['verify'] }, ed25519, { ...ed25519, alg: 'Ed25519' }])).toEqual([]);
  });

  test.each([
    ['an EC key without its point', { kty: 'EC', crv: 'P-256', kid: 'x' }, 'is not a valid public key (its members make no key)'],
    ['a 17-bit RSA modulus', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }, 'must have a modulus of at least 2048 bits'],
    ['a 1024-bit RSA key', jwkOf(generateKeyPairSync('rsa', { modulusLength: 1024 })), 'must have a modulus of at least 2048 bits'],
    ['a P-384 key (ES384 is not accepted)', jwkOf(generateKeyPairSync('ec', { namedCurve: 'P-384' })), 'must be on the curve P-256 (ES256)'],
    ['an X25519 key-agreement key', jwkOf(generateKeyPairSync('x25519')), 'must be an Ed25519 key (EdDSA)'],
    ['an alg of another key type', { ...p256, alg: 'RS256' }, 'has alg "RS256": EC keys sign assertions with ES256'],
    ['an HMAC alg', { ...ed25519, alg: 'HS256' }, 'has alg "HS256": OKP keys sign assertions with EdDSA or Ed25519'],
    ['an encryption key', { ...p256, use: 'enc' }, 'must be a signing key (use "sig")'],
    ['key_ops without verify', { ...rsa2048, key_ops: ['encrypt'] }, 'must allow "verify" in key_ops'],
  ])('%s: refused when registered, naming the key', (_name, key, message) => {
    expect(problems([rsa2048, key])).toEqual([`jwks: key 2 ${message}`]);
  });
});
