/**
 * What a new password must be (NIST SP 800-63B §5.1.1.2, OWASP
 * Authentication Cheat Sheet): at least 8 characters, counted as Unicode
 * code points, and at least 64 allowed (we allow 1,024); no composition rules
 * (no "one digit, one capital"), no hints, no expiry; refused when it is a
 * commonly used password (the 49,000 most frequent of the zxcvbn-ts common
 * list, compared ignoring case) or the account's own email address or its
 * local part. Every printable character and space is allowed. The rules
 * see the password in the form it is hashed in (NFKC, passwords.ts).
 */
import { onFirstUse } from '../on-first-use.ts';
import { normalizePassword } from './passwords.ts';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** The list, loaded and lower-cased on first use (about 3 MB, 70 ms): never at start-up. */
const commonPasswords = onFirstUse(() => import('@zxcvbn-ts/language-common')
  .then(({ dictionary }): ReadonlySet<string> => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()))));

export type PasswordProblem = 'too-short' | 'too-long' | 'common' | 'email';

const MESSAGES: Record<PasswordProblem, string> = {
  'too-short': `must be at least ${MIN_PASSWORD_LENGTH} characters`,
  'too-long': `must be at most ${MAX_PASSWORD_LENGTH} characters`,
  common: 'is one of the most commonly used passwords; choose another',
  email: 'must not be your email address',
};

/** Why `typed` cannot be the account's new password, or undefined when it can. */
export async function checkNewPassword(typed: string, email?: string): Promise<PasswordProblem | undefined> {
  const password = normalizePassword(typed);
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return 'too-short';
  if (length > MAX_PASSWORD_LENGTH) return 'too-long';
  const lower = password.toLowerCase();
  if ((await commonPasswords()).has(lower)) return 'common';
  if (email !== undefined) {
    const address = email.trim().toLowerCase();
    if (lower === address || lower === address.split('@')[0]) return 'email';
  }
  return undefined;
}

/** {@link checkNewPassword} in words, for the CLI and the services' field errors. */
export async function passwordProblem(password: string, email?: string): Promise<string | undefined> {
  const problem = await checkNewPassword(password, email);
  return problem && MESSAGES[problem];
}
