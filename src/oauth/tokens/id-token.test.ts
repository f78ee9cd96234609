/** ID tokens (OpenID Connect Core §2, §3.1.3.6): claims, lifetime, nonce only when sent, at_hash, sid. */
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { signerOf } from '../keys/key-store.ts';
import { atHash, signIdToken } from './id-token.ts';

const NOW = 1_780_000_000;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signer = signerOf({ kid: 'k1', privateKey });
const part = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('ID tokens', () => {
  test('at_hash: the OpenID Connect Core Appendix A.3 example (RS256)', () => {
    expect(atHash('RS256', 'jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y')).toBe('77QmUPtjPfzWtF2AnpK9RQ');
  });

  test('at_hash: the left half of SHA-256 for RS256 and ES256, of SHA-512 for EdDSA', () => {
    const leftHalf = (hash: string, length: number) => createHash(hash).update('an access token').digest().subarray(0, length).toString('base64url');
    expect(atHash('RS256', 'an access token')).toBe(leftHalf('sha256', 16));
    expect(atHash('ES256', 'an access token')).toBe(leftHalf('sha256', 16));
    expect(atHash('EdDSA', 'an access token')).toBe(leftHalf('sha512', 32));
    expect(atHash('EdDSA', 'an access token')).toHaveLength(43);
  });

  test('an EdDSA ID token\'s at_hash is the left half of SHA-512', async () => {
    const edSigner = signerOf({ kid: 'ed', privateKey: generateKeyPairSync('ed25519').privateKey });
    const token = await signIdToken(edSigner, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW, amr: ['pwd'], nonce: null, sid: null, accessToken: 'at' });
    expect(part(token, 0)).toMatchObject({ alg: 'EdDSA' });
    expect(part(token, 1)['at_hash']).toBe(createHash('sha512').update('at').digest().subarray(0, 32).toString('base64url'));
  });

  test('RS256 with kid; iss, sub, aud, one hour, auth_time, amr, acr, nonce, at_hash of the access token, sid; a valid signature', async () => {
    const token = await signIdToken(signer, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW - 5, amr: ['pwd'], nonce: 'n-1', sid: 'sid-1', accessToken: 'at' });
    expect(part(token, 0)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
    expect(part(token, 1)).toEqual({
      iss: 'https://id.example', sub: '42', aud: 'wiki', iat: NOW, exp: NOW + 3600, auth_time: NOW - 5, amr: ['pwd'], acr: 'urn:foodsharing:acr:password',
      nonce: 'n-1', at_hash: atHash('RS256', 'at'), sid: 'sid-1',
    });
    const [header, payload, signature] = token.split('.');
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
  });

  test('no nonce claim when the request sent none, no sid when the session is unknown', async () => {
    const token = await signIdToken(signer, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW, amr: ['pwd'], nonce: null, sid: null, accessToken: 'at' });
    expect(part(token, 1)).not.toHaveProperty('nonce');
    expect(part(token, 1)).not.toHaveProperty('sid');
  });

  test('acr states the strongest level the methods reach', async () => {
    const acr = async (amr: string[]) => part(await signIdToken(signer, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW, amr, nonce: null, sid: null, accessToken: 'at' }), 1)['acr'];
    expect(await acr(['pwd'])).toBe('urn:foodsharing:acr:password');
    expect(await acr(['pwd', 'otp', 'mfa'])).toBe('urn:foodsharing:acr:mfa');
    expect(await acr(['hwk', 'user'])).toBe('phr');
  });

  test('amr says user (presence tested) for a passkey that verified nobody, and acr stays the level of what was recorded', async () => {
    const claims = part(await signIdToken(signer, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW, amr: ['pwd', 'hwk', 'mfa'], nonce: null, sid: null, accessToken: 'at' }), 1);
    expect([claims['amr'], claims['acr']]).toEqual([['pwd', 'hwk', 'user', 'mfa'], 'phr']);
    const keyAlone = part(await signIdToken(signer, 'https://id.example', NOW, { sub: '42', clientId: 'wiki', authTime: NOW, amr: ['swk'], nonce: null, sid: null, accessToken: 'at' }), 1);
    expect(keyAlone['amr']).toEqual(['swk', 'user']);
  });
});
