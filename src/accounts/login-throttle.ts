/**
 * Failed-login throttling per account and per client IP (SPEC §4), counted in
 * the database so that every instance sees the same numbers. An attempt first
 * reserves its place on both counters in one atomic upsert each, and only then
 * is the password checked: parallel attempts cannot all pass a check made
 * before any of them was counted.
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';

export const THROTTLE_WINDOW_SECONDS = 15 * 60;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_IP = 30;

export interface ThrottleKeys { readonly account: string; readonly ip: string }

export function throttleKeys(email: string, ip: string): ThrottleKeys {
  // PostgreSQL text cannot hold NUL: such an email still gets its own (storable) counter.
  const storable = (value: string) => value.replace(/\u0000/g, '\uFFFD');
  return { account: `account:${storable(email.trim().toLowerCase())}`, ip: `ip:${storable(ip)}` };
}

/**
 * Counts this attempt on both counters, before the password is checked.
 * Returns 0 when it may go on (a wrong password then leaves it counted), or the
 * seconds until another attempt is allowed: the attempt is refused and its
 * reservation given back, so refused attempts never count as failures.
 */
export async function reserveAttempt(db: Executor, clock: Clock, keys: ThrottleKeys): Promise<number> {
  const now = clock();
  // One single-row statement per counter: no statement ever holds two row locks, so none can deadlock.
  const [account, ip] = await Promise.all([countAttempt(db, now, keys.account), countAttempt(db, now, keys.ip)]);
  const wait = Math.max(secondsBlocked(account, MAX_FAILURES_PER_ACCOUNT, now), secondsBlocked(ip, MAX_FAILURES_PER_IP, now));
  if (wait > 0) await Promise.all([giveBack(db, keys.account), giveBack(db, keys.ip)]);
  return wait;
}

/** A successful login: the account's counter starts again, the IP gets its reservation back. */
export async function recordSuccess(db: Executor, keys: ThrottleKeys): Promise<void> {
  await Promise.all([clearFailures(db, keys.account), giveBack(db, keys.ip)]);
}

interface Counter { failures: number; window_ends_at: Date }

async function countAttempt(db: Executor, now: Date, key: string): Promise<Counter> {
  const windowEnd = new Date(now.getTime() + THROTTLE_WINDOW_SECONDS * 1000);
  return db.insertInto('login_throttle')
    .values({ key, failures: 1, window_ends_at: windowEnd })
    .onConflict((oc) => oc.column('key').doUpdateSet({
      failures: sql`case when login_throttle.window_ends_at <= ${now} then 1 else login_throttle.failures + 1 end`,
      window_ends_at: sql`case when login_throttle.window_ends_at <= ${now} then ${windowEnd} else login_throttle.window_ends_at end`,
    }))
    .returning(['failures', 'window_ends_at'])
    .executeTakeFirstOrThrow();
}

function secondsBlocked(counter: Counter, limit: number, now: Date): number {
  if (counter.failures <= limit) return 0;
  return Math.max(1, Math.ceil((counter.window_ends_at.getTime() - now.getTime()) / 1000));
}

async function giveBack(db: Executor, key: string): Promise<void> {
  await db.updateTable('login_throttle').set({ failures: sql`greatest(login_throttle.failures - 1, 0)` }).where('key', '=', key).execute();
}

export async function clearFailures(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

export async function purgeExpiredThrottles(db: Executor, clock: Clock): Promise<void> {
  await db.deleteFrom('login_throttle').where('window_ends_at', '<=', clock()).execute();
}
