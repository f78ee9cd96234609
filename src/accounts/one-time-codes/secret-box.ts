/**
 * TOTP secrets at rest: AES-256-GCM under a key derived for this purpose
 * alone (oauth/keys/derived-keys.ts), with the member's id as additional
 * authenticated data, so that a secret copied onto another member's row does
 * not decrypt. Stored as IV (12 bytes) ‖ ciphertext ‖ tag (16 bytes).
 */
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sealSecret(key: KeyObject, userId: number, secret: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(`one-time-code:${userId}`));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]);
}

/** The secret, or undefined when the box was not sealed by {@link sealSecret} with this key for this member. */
export function openSecret(key: KeyObject, userId: number, box: Uint8Array): string | undefined {
  if (box.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(`one-time-code:${userId}`));
    decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
    return Buffer.concat([decipher.update(box.subarray(IV_BYTES, box.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
