import { createSecretKey, randomBytes } from 'node:crypto';
import { compactDecrypt, CompactEncrypt, EncryptJWT } from 'jose';
import { describe, expect, test } from 'vitest';
import { decryptDirA256Gcm, dirA256GcmHeader, encryptDirA256Gcm } from './jwe.ts';
import { encodeSegment } from './jws.ts';

const keyBytes = randomBytes(32);
const key = createSecretKey(keyBytes);
const header = dirA256GcmHeader('rt+jwt');

describe('dir + A256GCM compact JWE on node:crypto', () => {
  test('what it encrypts, jose decrypts (RFC 7516 interop)', async () => {
    const token = encryptDirA256Gcm(header, { rid: 7, client_id: 'app' }, key);
    const { plaintext, protectedHeader } = await compactDecrypt(token, key);
    expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM', typ: 'rt+jwt' });
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ rid: 7, client_id: 'app' });
  });

  test('what jose encrypts, it decrypts; every token has its own IV', async () => {
    const token = await new EncryptJWT({ rid: 9 }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'rt+jwt' }).encrypt(key);
    expect(decryptDirA256Gcm(token, key, 'rt+jwt')).toEqual({ rid: 9 });
    expect(encryptDirA256Gcm(header, { rid: 1 }, key)).not.toBe(encryptDirA256Gcm(header, { rid: 1 }, key));
  });

  test('another key, another typ, a changed byte anywhere, or a changed header fail', async () => {
    const token = encryptDirA256Gcm(header, { rid: 7 }, key);
    expect(decryptDirA256Gcm(token, createSecretKey(randomBytes(32)), 'rt+jwt')).toBeUndefined();
    expect(decryptDirA256Gcm(token, key, 'at+jwt')).toBeUndefined();
    const parts = token.split('.');
    for (const index of [2, 3, 4]) {
      const changed = [...parts];
      const segment = changed[index]!;
      changed[index] = (segment[0] === 'A' ? 'B' : 'A') + segment.slice(1);
      expect(decryptDirA256Gcm(changed.join('.'), key, 'rt+jwt')).toBeUndefined();
    }
    // The header is authenticated (RFC 7516 §5.1 step 14): another header with the same body fails.
    const swapped = [encodeSegment({ enc: 'A256GCM', alg: 'dir', typ: 'rt+jwt' }), ...parts.slice(1)].join('.');
    expect(decryptDirA256Gcm(swapped, key, 'rt+jwt')).toBeUndefined();
  });

  test('refuses other algorithms, crit and zip headers, and a non-empty encrypted key', async () => {
    const a128 = await new CompactEncrypt(new TextEncoder().encode('{}')).setProtectedHeader({ alg: 'dir', enc: 'A128GCM', typ: 'rt+jwt' }).encrypt(randomBytes(16));
    expect(decryptDirA256Gcm(a128, key, 'rt+jwt')).toBeUndefined();
    for (const extra of [{ crit: ['x'], x: 1 }, { zip: 'DEF' }]) {
      const token = encryptDirA256Gcm(encodeSegment({ alg: 'dir', enc: 'A256GCM', typ: 'rt+jwt', ...extra }), {}, key);
      expect(decryptDirA256Gcm(token, key, 'rt+jwt')).toBeUndefined();
    }
    const [h, , iv, ct, tag] = encryptDirA256Gcm(header, {}, key).split('.');
    expect(decryptDirA256Gcm(`${h}.AAAA.${iv}.${ct}.${tag}`, key, 'rt+jwt')).toBeUndefined();
  });
});
