/**
 * Device codes (RFC 8628 §3.2): 256 random bits, base64url, handed to the
 * device only; the server stores their SHA-256 digest. The continuation that
 * carries a confirmed code through login and consent is made the same way.
 */
import { createHash, randomBytes } from 'node:crypto';

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
const SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A fresh random reference (a device code or a continuation) and its digest. */
export function newReference(): { value: string; digest: Buffer } {
  const value = randomBytes(32).toString('base64url');
  return { value, digest: referenceDigest(value)! };
}

/** The stored digest a presented reference would have; undefined when it cannot be one of ours. */
export function referenceDigest(value: unknown): Buffer | undefined {
  return typeof value === 'string' && SHAPE.test(value) ? createHash('sha256').update(value).digest() : undefined;
}

export const deviceCodeDigest = referenceDigest;
