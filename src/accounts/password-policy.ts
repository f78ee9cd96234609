/**
 * What a new password must be (NIST SP 800-63B §5.1.1.2, OWASP
 * Authentication Cheat Sheet): at least 8 characters, counted as Unicode
 * code points, and at least 64 allowed (we allow 1,024); no composition rules
 * (no "one digit, one capital"), no hints, no expiry. Refused, as the
 * standard's list of values to compare against names them:
 * - a commonly used password (the 49,000 most frequent of the zxcvbn-ts
 *   common list, compared ignoring case), also decorated the way people
 *   decorate them: digits or signs before or after it (`Passwort123`,
 *   `Sommer2024!`) and letters written as digits or signs (`P@ssw0rd`);
 * - repetitive or sequential characters: one part repeated (`aaaaaaaa`,
 *   `12341234`), a run of consecutive characters (`abcdefgh`, `98765432`)
 *   or of a keyboard row (`asdfghjk`, `qwertzui`);
 * - context-specific words: the account's own email address or its local
 *   part, the service's name, and the demo password the README publishes —
 *   also as a variant that only adds digits, signs or spaces around or
 *   within them (`foodsharing2026`, `mia.muster!`).
 * Every printable character and space is allowed. The rules see the
 * password in the form it is hashed in (NFKC, passwords.ts).
 */
import { onFirstUse } from '../on-first-use.ts';
import { normalizePassword } from './passwords.ts';

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/** The list, loaded and lower-cased on first use (about 3 MB, 70 ms): never at start-up. */
const commonPasswords = onFirstUse(() => import('@zxcvbn-ts/language-common')
  .then(({ dictionary }): ReadonlySet<string> => new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()))));

export type PasswordProblem = 'too-short' | 'too-long' | 'common' | 'repetitive' | 'context' | 'email';

const MESSAGES: Record<PasswordProblem, string> = {
  'too-short': `must be at least ${MIN_PASSWORD_LENGTH} characters`,
  'too-long': `must be at most ${MAX_PASSWORD_LENGTH} characters`,
  common: 'is one of the most commonly used passwords; choose another',
  repetitive: 'must not be a repetition or a sequence of characters (aaaaaaaa, 12341234, abcdefgh)',
  context: 'must not be the name of this service or the published demo password, nor one of them with digits or signs added',
  email: 'must not be your email address',
};

/** The service's own words, and the demo password (README), in the letters-only form compared. */
const CONTEXT_WORDS: ReadonlySet<string> = new Set(['foodsharing', 'foodsaver', 'foodsharer', 'fairteiler', 'lebensmittelretten', 'demopassword']);

/** Keyboard rows (German and English layouts, and the digits), read either way. */
const KEYBOARD_ROWS = ['1234567890ß', 'qwertzuiopü', 'qwertyuiop', 'asdfghjklöä', 'yxcvbnm', 'zxcvbnm'].flatMap((row) => [row, [...row].reverse().join('')]);

/** The letters alone, for comparing variants: `Mia.Muster-2026!` → `miamuster`. */
function lettersOf(lower: string): string {
  return lower.replace(/[^\p{L}]/gu, '');
}

/** Digits and signs written for letters (`p@ssw0rd`); `1` is read as `i` in one reading and as `l` in the other. */
const LEET: Readonly<Record<string, string>> = { '@': 'a', 4: 'a', 0: 'o', '!': 'i', 3: 'e', $: 's', 5: 's', 7: 't', 8: 'b', 9: 'g' };

/** The longest common password compared in a decorated form: the list's are short. */
const MAX_DECORATED_CORE = 40;

/**
 * The password as it may decorate a common one: without the digits and signs before its first and after its
 * last letter, read with {@link LEET} (`P@ssw0rd!` → `password`, `Sommer2024!` → `sommer`).
 */
function undecorated(lower: string): string[] {
  const core = lower.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  if (core === '' || core.length > MAX_DECORATED_CORE) return [];
  const read = (one: string) => [...core].map((c) => (c === '1' ? one : LEET[c] ?? c)).join('');
  return [read('i'), read('l')];
}

function isRepetitive(lower: string): boolean {
  if (/^(.+?)\1+$/su.test(lower)) return true;
  const points = [...lower].map((c) => c.codePointAt(0)!);
  const step = points[1]! - points[0]!;
  if ((step === 1 || step === -1) && points.every((p, i) => i === 0 || p - points[i - 1]! === step)) return true;
  return KEYBOARD_ROWS.some((row) => row.includes(lower));
}

export interface NewPasswordOptions {
  /** A demo account (demo-data.ts), whose password is the published demo password: the service's words are allowed. */
  readonly demoAccount?: boolean;
}

/** Why `typed` cannot be the account's new password, or undefined when it can. */
export async function checkNewPassword(typed: string, email?: string, options: NewPasswordOptions = {}): Promise<PasswordProblem | undefined> {
  const password = normalizePassword(typed);
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return 'too-short';
  if (length > MAX_PASSWORD_LENGTH) return 'too-long';
  const lower = password.toLowerCase();
  const common = await commonPasswords();
  if (common.has(lower) || undecorated(lower).some((reading) => common.has(reading))) return 'common';
  if (isRepetitive(lower)) return 'repetitive';
  const letters = lettersOf(lower);
  if (CONTEXT_WORDS.has(letters) && !options.demoAccount) return 'context';
  if (email !== undefined) {
    const address = email.trim().toLowerCase();
    if (lower === address || lower === address.split('@')[0]) return 'email';
    // A variant: the address or its local part with digits or signs added (at least three letters to compare).
    const variants = [lettersOf(address), lettersOf(address.split('@')[0]!)].filter((v) => v.length >= 3);
    if (variants.includes(letters)) return 'email';
  }
  return undefined;
}

/** {@link checkNewPassword} in words, for the CLI and the services' field errors. */
export async function passwordProblem(password: string, email?: string, options: NewPasswordOptions = {}): Promise<string | undefined> {
  const problem = await checkNewPassword(password, email, options);
  return problem && MESSAGES[problem];
}
