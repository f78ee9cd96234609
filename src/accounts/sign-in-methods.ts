/**
 * How a member can sign in, as the admin screen's member page shows it
 * (section "Sign-in methods"): whether a password is set, one-time codes are
 * on, and how many passkeys they have. Never a secret.
 */
import type { Executor } from '../db/executor.ts';
import { findSecondFactors } from './one-time-codes/one-time-codes.repository.ts';

export interface SignInMethods {
  /** A password is set (a deleted member's row holds none). */
  readonly password: boolean;
  /** One-time codes (TOTP) are turned on. */
  readonly oneTimeCodes: boolean;
  readonly passkeys: number;
}

export async function describeSignInMethods(db: Executor, userId: number): Promise<SignInMethods> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  const factors = await findSecondFactors(db, userId);
  return { password: row !== undefined && row.password_hash.startsWith('$argon2'), oneTimeCodes: factors.totp, passkeys: factors.passkeys };
}
