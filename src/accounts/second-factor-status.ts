/**
 * Whether a member signs in with a second factor (a passkey or one-time
 * codes), as the start page shows it.
 */
import type { Executor } from '../db/executor.ts';
import { findSecondFactors, hasSecondFactor } from './one-time-codes/one-time-codes.repository.ts';

export async function isSecondFactorEnabled(db: Executor, userId: number): Promise<boolean> {
  return hasSecondFactor(await findSecondFactors(db, userId));
}
