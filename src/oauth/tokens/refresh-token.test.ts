/** Refresh tokens (SPEC §5.3): a compact JWE naming a row and its client, unreadable and unforgeable without the key. */
import { describe, expect, test } from 'vitest';
import { dirA256GcmHeader, encryptDirA256Gcm } from '../jose/jwe.ts';
import { derivedKeys } from '../keys/derived-keys.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { decryptRefreshToken, encryptRefreshToken } from './refresh-token.ts';

const KEYS: KeyMaterial = { signingKeyPem: '', encryptionKey: new Uint8Array(32).fill(1), generatedIn: undefined };
const OTHER: KeyMaterial = { ...KEYS, encryptionKey: new Uint8Array(32).fill(2) };
const NOW = 1_780_000_000;
const EXPIRES = new Date((NOW + 30 * 24 * 3600) * 1000);
const at = (seconds: number) => new Date(seconds * 1000);

describe('refresh tokens', () => {
  test('a dir/A256GCM compact JWE of typ rt+jwt that names the row and client, nothing readable', () => {
    const token = encryptRefreshToken(KEYS, { rowId: 12, clientId: 'wiki' }, NOW, EXPIRES);
    const parts = token.split('.');
    expect(parts).toHaveLength(5);
    expect(parts[1]).toBe('');
    expect(JSON.parse(Buffer.from(parts[0]!, 'base64url').toString())).toMatchObject({ alg: 'dir', enc: 'A256GCM', typ: 'rt+jwt' });
    expect(token).not.toContain('wiki');
    expect(decryptRefreshToken(KEYS, token, at(NOW))).toEqual({ rowId: 12, clientId: 'wiki', iat: NOW, exp: NOW + 30 * 24 * 3600 });
  });

  test('valid until, not at, the expiry it was issued with', () => {
    const token = encryptRefreshToken(KEYS, { rowId: 12, clientId: 'wiki' }, NOW, EXPIRES);
    expect(decryptRefreshToken(KEYS, token, at(NOW + 30 * 24 * 3600 - 1))).toBeDefined();
    expect(decryptRefreshToken(KEYS, token, EXPIRES)).toBeUndefined();
  });

  test('another key, an altered token or an overlong one: undefined', () => {
    const token = encryptRefreshToken(KEYS, { rowId: 12, clientId: 'wiki' }, NOW, EXPIRES);
    expect(decryptRefreshToken(OTHER, token, at(NOW))).toBeUndefined();
    const parts = token.split('.');
    parts[3] = `${parts[3]!.slice(0, -2)}${parts[3]!.endsWith('AA') ? 'BA' : 'AA'}`;
    expect(decryptRefreshToken(KEYS, parts.join('.'), at(NOW))).toBeUndefined();
    expect(decryptRefreshToken(KEYS, 'a'.repeat(4097), at(NOW))).toBeUndefined();
  });

  test.each([
    ['a negative row', { rid: -1, client_id: 'wiki', exp: NOW + 60 }],
    ['a fractional row', { rid: 1.5, client_id: 'wiki', exp: NOW + 60 }],
    ['no client', { rid: 1, exp: NOW + 60 }],
    ['no exp', { rid: 1, client_id: 'wiki' }],
  ])('a token of our key with %s: undefined', (_name, claims) => {
    const token = encryptDirA256Gcm(dirA256GcmHeader('rt+jwt'), claims, derivedKeys(KEYS).refreshToken);
    expect(decryptRefreshToken(KEYS, token, at(NOW))).toBeUndefined();
  });
});
