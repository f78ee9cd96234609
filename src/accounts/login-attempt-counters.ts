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
  /** Counts one attempt on `key` if it is allowed at `now`. */
  reserve(key: string, policy: DelayPolicy, now: Date): Promise<Reservation>;
  /**
   * Takes back an attempt that was counted but turned out to be none (a right code, or one refused by
   * another counter): one failure fewer, and the last attempt's time as it was before, unless a later
   * attempt has moved it since. The counter is then as if the attempt had never been made.
   */
  giveBack(key: string, counted: CountedAttempt): Promise<void>;
  /** A successful login: the counter starts again. */
  clear(key: string): Promise<void>;
}

/** A counted attempt: the counter's end (last attempt + {@link FORGET_SECONDS}) before it (null: none, or forgotten), and as it set it. */
export interface CountedAttempt { readonly counted: true; readonly previousEnd: Date | null; readonly end: Date }
/** What {@link AttemptCounters.reserve} did: counted the attempt, or refused it for `wait` seconds. */
export type Reservation = CountedAttempt | { readonly counted: false; readonly wait: number };

export function databaseAttemptCounters(db: Executor): AttemptCounters {
  return {
    reserve: (key, policy, now) => reserveOn(db, key, policy, now),
    giveBack: (key, counted) => giveBack(db, key, counted),
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
 * Counts one attempt on `key` if it is allowed at `now`, reading the counter's end before it (the row
 * locked, so that the upsert changes the version read).
 */
async function reserveOn(db: Executor, key: string, policy: DelayPolicy, now: Date): Promise<Reservation> {
  const forgetAt = new Date(now.getTime() + FORGET_SECONDS * 1000);
  // `previous` is read (and its row locked) before the upsert: the insert's condition refers to it.
  const { rows: [counted] } = await sql<{ window_ends_at: Date; previous_end: Date | null }>`
    with previous as materialized (select window_ends_at from login_throttle where key = ${key} for update)
    insert into login_throttle (key, failures, window_ends_at)
    select ${key}, 1, ${forgetAt}::timestamptz where (select count(*) from previous) >= 0
    on conflict (key) do update set
      failures = case when login_throttle.window_ends_at <= ${now} then 1 else login_throttle.failures + 1 end,
      -- Parallel requests read the clock in any order: the last attempt never moves back.
      window_ends_at = greatest(login_throttle.window_ends_at, ${forgetAt})
    -- The last attempt was at window_ends_at − FORGET: allowed once its delay has passed.
    where login_throttle.window_ends_at <= ${now}
      or login_throttle.failures < ${sql.lit(policy.free)}
      or login_throttle.window_ends_at + make_interval(secs => ${delayExpression(policy)}) <= ${forgetAt}
    returning window_ends_at, (select window_ends_at from previous where window_ends_at > ${now}) as previous_end`.execute(db);
  if (counted) return { counted: true, previousEnd: counted.previous_end, end: counted.window_ends_at };
  return { counted: false, wait: await secondsToWait(db, key, policy, now) };
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

async function giveBack(db: Executor, key: string, counted: CountedAttempt): Promise<void> {
  await db.updateTable('login_throttle').set({
    failures: sql`greatest(login_throttle.failures - 1, 0)`,
    // A later attempt's end stays; with none before, the counter is forgotten unless other attempts remain counted.
    window_ends_at: sql`case when login_throttle.window_ends_at <> ${counted.end} then login_throttle.window_ends_at
      when ${counted.previousEnd}::timestamptz is not null then ${counted.previousEnd}::timestamptz
      when login_throttle.failures <= 1 then 'epoch'::timestamptz
      else login_throttle.window_ends_at end`,
  }).where('key', '=', key).execute();
}

async function clearCounter(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('login_throttle').where('key', '=', key).execute();
}

export async function purgeForgottenCounters(db: Executor, now: Date): Promise<void> {
  await deleteInBatches(db, 'login_throttle', sql<boolean>`window_ends_at <= ${now}`);
}
