/**
 * Whether a member may remove a passkey (OWASP Authentication Cheat Sheet:
 * never leave an account without a way in). Today every account has a
 * password (`users.password_hash` is required), so the guard only bites for a
 * hash that can verify nothing: an account created without a password (a
 * future passwordless sign-up or an import from another system marks such an
 * account with a stored value that is no Argon2 hash, such as `!`). For such
 * an account the last passkey is the only way in and stays.
 */

/** Whether the stored hash can ever verify a password (passwords.ts writes Argon2id only). */
export function isUsablePasswordHash(passwordHash: string): boolean {
  return passwordHash.startsWith('$argon2');
}

export function mayRemovePasskey(account: { passkeys: number; hasUsablePassword: boolean }): boolean {
  return account.hasUsablePassword || account.passkeys > 1;
}
