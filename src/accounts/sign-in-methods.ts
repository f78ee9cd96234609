/**
 * How a member can sign in, as the admin screen's member page shows it
 * (section "Sign-in methods"). Today that is a password; further methods (a
 * second factor, passkeys) are added to {@link SignInMethods} and read here,
 * so the page shows them without other changes.
 */
import type { Executor } from '../db/executor.ts';

export interface SignInMethods {
  /** A password is set (a deleted member's row holds none). */
  readonly password: boolean;
}

export async function describeSignInMethods(db: Executor, userId: number): Promise<SignInMethods> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  return { password: row !== undefined && row.password_hash.startsWith('$argon2') };
}
