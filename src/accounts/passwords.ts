/**
 * Argon2id password hashing (OWASP parameters: m=19 MiB, t=2, p=1) of the
 * password in Unicode normalisation form NFKC (NIST SP 800-63B §5.1.1.2):
 * "ä" typed as one code point or as "a" and a combining diaeresis, as one
 * keyboard or another sends it, is the same password.
 */
import { hash, verify } from '@node-rs/argon2';

const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The form a password is hashed, verified and checked by the password rules in. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

export function hashPassword(password: string): Promise<string> {
  return hash(normalizePassword(password), OPTIONS);
}

async function matches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * Whether `password` is the one `passwordHash` was made of. Hashes made
 * before normalisation hold the password as it was typed: when the NFKC form
 * fails and the password is not in NFKC, the password as typed is tried too.
 */
export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  const normalized = normalizePassword(password);
  if (await matches(passwordHash, normalized)) return true;
  return normalized !== password && matches(passwordHash, password);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, so that an unknown email
 * answers no faster than a wrong password (no account enumeration by timing).
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('timing-equaliser-not-a-password');
  await verifyPassword(await dummyHash, password);
  return false;
}
