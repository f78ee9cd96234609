/**
 * Recovery codes (NIST SP 800-63B §5.1.2 "look-up secrets"): ten random codes
 * of 60 bits each, shown once, stored as keyed digests (HMAC-SHA-256 under a
 * key of their own), each usable once. Attempts are rate-limited by the login
 * throttle like the codes of an app.
 */
import { createHmac, randomInt, type KeyObject } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
/** No 0/o, 1/l/i: a code copied from paper is read as written. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GROUPS = 3;
const GROUP_LENGTH = 4;

/** Ten fresh codes, `xxxx-xxxx-xxxx`. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => Array.from({ length: GROUPS }, () =>
    Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')).join('-'));
}

/** A code as typed (any case, spaces or dashes) in the form it is digested, or undefined when it cannot be one. */
export function normalizeRecoveryCode(text: string): string | undefined {
  const compact = text.toLowerCase().replace(/[\s-]/g, '');
  return compact.length === GROUPS * GROUP_LENGTH && [...compact].every((c) => ALPHABET.includes(c)) ? compact : undefined;
}

export function digestRecoveryCode(key: KeyObject, userId: number, normalized: string): Buffer {
  return createHmac('sha256', key).update(`${userId}:${normalized}`).digest();
}
