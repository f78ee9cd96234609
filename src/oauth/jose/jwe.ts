/**
 * Compact JWE with direct encryption under a shared key and AES-256-GCM
 * (RFC 7516 §7.1; RFC 7518 §4.5, §5.3): protected header, empty encrypted
 * key, 96-bit random IV, ciphertext, 128-bit tag; the additional
 * authenticated data is the ASCII of the encoded header (RFC 7516 §5.1
 * step 14). Synchronous node:crypto: AES-GCM over a few dozen bytes costs less
 * than a hop to a thread.
 */
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';
import { decodeJsonObject, encodeSegment, isMediaType, parseJsonObject } from './jws.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const COMPACT_JWE = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

/** The header segment for `typ`, to compute once. */
export function dirA256GcmHeader(typ: string): string {
  return encodeSegment({ alg: 'dir', enc: 'A256GCM', typ });
}

export function encryptDirA256Gcm(headerSegment: string, payload: object, key: KeyObject): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(headerSegment, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return `${headerSegment}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/**
 * The payload object of a token encrypted by {@link encryptDirA256Gcm} with
 * `key` and carrying `typ`; undefined for anything else (another algorithm,
 * a `crit` or `zip` header, a wrong key, a changed byte).
 */
export function decryptDirA256Gcm(token: string, key: KeyObject, typ: string): Record<string, unknown> | undefined {
  const parts = COMPACT_JWE.exec(token);
  if (!parts) return undefined;
  const header = decodeJsonObject(parts[1]!);
  if (!header || header.alg !== 'dir' || header.enc !== 'A256GCM' || !isMediaType(header.typ, typ)
    || header.crit !== undefined || header.zip !== undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2]!, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(parts[1]!, 'ascii'));
    decipher.setAuthTag(Buffer.from(parts[4]!, 'base64url'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]);
    return parseJsonObject(plaintext.toString('utf8'));
  } catch {
    return undefined;
  }
}
