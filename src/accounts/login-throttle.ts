/**
 * Failed-login throttling per account and per client IP (SPEC §4), counted in
 * the database so that every instance sees the same numbers.
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';

export const THROTTLE_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_IP = 30;

export function throttleKeys(email: string, ip: string): { account: string; ip: string } {
  return { account: `account:${email.trim().toLowerCase()}`, ip: `ip:${ip}` };
}

/** Seconds until another attempt is allowed, or 0 when it is allowed now. */
export async function secondsUntilAllowed(db: Executor, clock: Clock, keys: { account: string; ip: string }): Promise<number> {
  const now = clock();
  const rows = await db.selectFrom('login_throttle').select(['key', 'failures', 'window_ends_at'])
    .where('key', 'in', [keys.account, keys.ip]).where('window_ends_at', '>', now).execute();
  let wait = 0;
  for (const row of rows) {
    const limit = row.key === keys.account ? MAX_FAILURES_PER_ACCOUNT : MAX_FAILURES_PER_IP;
    if (row.failures >= limit) wait = Math.max(wait, Math.ceil((row.window_ends_at.getTime() - now.getTime()) / 1000));
  }
  return wait;
}

export async function recordFailure(db: Executor, clock: Clock, keys: { account: string; ip: string }): Promise<void> {
  const now = clock();
  const windowEnd = new Date(now.getTime() + THROTTLE_WINDOW_SECONDS * 1000);
  await db.insertInto('login_throttle')
    .values([keys.account, keys.ip].map((key) => ({ key, failures: 1, window_ends_at: windowEnd })))
    .onConflict((oc) => oc.column('key').doUpdateSet({
      failures: sql`case when login_throttle.window_ends_at <= ${now} then 1 else login_throttle.failures + 1 end`,
      window_ends_at: sql`case when login_throttle.window_ends_at <= ${now} then ${windowEnd} else login_throttle.window_ends_at end`,
    }))
    .execute();
}

export async function clearFailures(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

export async function purgeExpiredThrottles(db: Executor, clock: Clock): Promise<void> {
  await db.deleteFrom('login_throttle').where('window_ends_at', '<=', clock()).execute();
}
