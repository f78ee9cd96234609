/**
 * Failed-login counters in the database (table `login_throttle`), shared by
 * every instance. A counter remembers how many attempts were counted and,
 * through `window_ends_at` (= last counted attempt + {@link FORGET_SECONDS}),
 * when the last one was. Each further attempt must wait a delay that doubles
 * with every failure past a free allowance ({@link delaySeconds}).
 *
 * Reserving is one conditional upsert: the row is counted only when the
 * attempt is allowed now, so parallel attempts cannot all pass a check made
 * before any of them was counted, and a refused attempt changes nothing.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

/**
 * Where the counters live: PostgreSQL ({@link databaseAttemptCounters}), or
 * Redis when `REDIS_URL` is set (login-attempt-counters.redis.ts). Both keep
 * the same rules; every instance must use the same store.
 */
export interface AttemptCounters {
  /** Counts one attempt on `key` if it is allowed at `now`: 0 when counted, else the seconds to wait. */
  reserve(key: string, policy: DelayPolicy, now: Date): Promise<number>;
  /** Takes back an attempt that was counted but then refused by another counter. */
  giveBack(key: string): Promise<void>;
  /** A successful login: the counter starts again. */
  clear(key: string): Promise<void>;
}

export function databaseAttemptCounters(db: Executor): AttemptCounters {
  return {
    reserve: (key, policy, now) => reserveOn(db, key, policy, now),
    giveBack: (key) => giveBack(db, key),
    clear: (key) => clearCounter(db, key),
  };
}

/** A counter is forgotten this long after its last counted attempt. */
export const FORGET_SECONDS = 24 * 60 * 60;

export interface DelayPolicy {
  /** Failures that cost no wait. */
  readonly free: number;
  /** Wait after the first failure past the free ones; doubles with each further one. */
  readonly baseSeconds: number;
  /** The wait never grows beyond this. */
  readonly maxSeconds: number;
}

/** Seconds the next attempt must wait after the last one, with `failures` counted. */
export function delaySeconds(policy: DelayPolicy, failures: number): number {
  if (failures < policy.free) return 0;
  return Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** Math.min(failures - policy.free, 30));
}

/**
 * Counts one attempt on `key` if it is allowed at `now`. Returns 0 when counted
 * (the caller gives it back or clears it on success), else the seconds to wait.
 */
async function reserveOn(db: Executor, key: string, policy: DelayPolicy, now: Date): Promise<number> {
  const forgetAt = new Date(now.getTime() + FORGET_SECONDS * 1000);
  const counted = await db.insertInto('login_throttle')
    .values({ key, failures: 1, window_ends_at: forgetAt })
    .onConflict((oc) => oc.column('key')
      .doUpdateSet({
        failures: sql`case when login_throttle.window_ends_at <= ${now} then 1 else login_throttle.failures + 1 end`,
        // Parallel requests read the clock in any order: the last attempt never moves back.
        window_ends_at: sql`greatest(login_throttle.window_ends_at, ${forgetAt})`,
      })
      // The last attempt was at window_ends_at − FORGET: allowed once its delay has passed.
      .where(sql<boolean>`login_throttle.window_ends_at <= ${now}
        or login_throttle.failures < ${sql.lit(policy.free)}
        or login_throttle.window_ends_at + make_interval(secs => ${delayExpression(policy)}) <= ${forgetAt}`))
    .returning('failures')
    .executeTakeFirst();
  return counted ? 0 : secondsToWait(db, key, policy, now);
}

function delayExpression(policy: DelayPolicy) {
  const free = sql.lit(policy.free);
  return sql`case when login_throttle.failures < ${free} then 0
    else least(${sql.lit(policy.maxSeconds)}, ${sql.lit(policy.baseSeconds)} * power(2, least(login_throttle.failures - ${free}, 30))) end`;
}

async function secondsToWait(db: Executor, key: string, policy: DelayPolicy, now: Date): Promise<number> {
  const row = await db.selectFrom('login_throttle').select(['failures', 'window_ends_at']).where('key', '=', key).executeTakeFirst();
  if (!row) return 1;
  const lastAttempt = row.window_ends_at.getTime() - FORGET_SECONDS * 1000;
  const allowedAt = lastAttempt + delaySeconds(policy, row.failures) * 1000;
  return Math.max(1, Math.ceil((allowedAt - now.getTime()) / 1000));
}

async function giveBack(db: Executor, key: string): Promise<void> {
  await db.updateTable('login_throttle').set({ failures: sql`greatest(login_throttle.failures - 1, 0)` }).where('key', '=', key).execute();
}

async function clearCounter(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

export async function purgeForgottenCounters(db: Executor, now: Date): Promise<void> {
  await deleteInBatches(db, 'login_throttle', sql<boolean>`window_ends_at <= ${now}`);
}
