/**
 * Whether a member signs in with a second factor (a passkey or one-time
 * codes), as the start page shows it. No second factor exists yet: every
 * member signs in with the password alone. The second factor's enrolment
 * answers here once it exists.
 */
import type { Executor } from '../db/executor.ts';

export async function isSecondFactorEnabled(_db: Executor, _userId: number): Promise<boolean> {
  return false;
}
