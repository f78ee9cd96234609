/**
 * User codes of the device flow (RFC 8628 §6.1): 8 characters of the 20
 * consonants "BCDFGHJKLMNPQRSTVWXZ" (no vowels, so no words; no digits, so no
 * 0/O or 1/I), shown as XXXX-XXXX, about 34.5 bits. What the member types is
 * normalised (§3.3: case, dashes and spaces ignored). Only a keyed HMAC-SHA256
 * digest is stored: a copy of the database alone cannot enumerate the live codes.
 */
import { createHmac, randomInt, type KeyObject } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A fresh code, normalised (no dash). */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** What was typed as a code: upper case without dashes and white space; undefined when it cannot be one. */
export function normalizeUserCode(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > 64) return undefined;
  const code = input.replace(/[\s\-\u2010-\u2015]/g, '').toUpperCase();
  return USER_CODE.test(code) ? code : undefined;
}

/** XXXX-XXXX, as shown on the device and on the confirmation page. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export function digestUserCode(key: KeyObject, code: string): Buffer {
  return createHmac('sha256', key).update(code).digest();
}
