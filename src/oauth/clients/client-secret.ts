/**
 * Client secrets (SPEC §5.1): 256 random bits, shown once, stored only as a
 * keyed HMAC-SHA256 digest and compared in constant time. A slow password hash
 * would buy nothing for a high-entropy secret and cap token throughput (SPEC §8).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyMaterial } from '../keys/key-material.ts';
import { derivedKeys } from '../keys/derived-keys.ts';

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function digestClientSecret(keys: KeyMaterial, secret: string): Buffer {
  return createHmac('sha256', derivedKeys(keys).clientSecret).update(secret, 'utf8').digest();
}

/** Constant-time check of a presented secret against the stored digest. */
export function isClientSecretValid(keys: KeyMaterial, stored: Buffer | null, presented: string): boolean {
  if (stored === null || presented.length === 0 || presented.length > 512) return false;
  const digest = digestClientSecret(keys, presented);
  return digest.length === stored.length && timingSafeEqual(digest, stored);
}
