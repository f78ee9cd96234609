/**
 * SQL of the failed-request limiter's windows (migration 070, failure-limiter.ts): a key's failures
 * in a minute that starts with its first failure, shared by every instance.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

/** Seconds until `key` may fail again (its window is full), or 0. */
async function secondsBlocked(db: Executor, key: string, limit: number, now: Date): Promise<number> {
  const row = await db.selectFrom('oauth_failure_windows').select(['failures', 'resets_at']).where('key', '=', key).executeTakeFirst();
  return row === undefined ? 0 : waitOf(row, limit, now);
}

/** A failure counted in the window ending at `resetsAt`, or the seconds the key is blocked for (nothing counted). */
export type CountedFailure = { readonly resetsAt: Date } | { readonly wait: number };

/**
 * Counts one failure of `key` unless its window is full. One statement: of parallel failures, no more
 * than `limit` are counted.
 */
export async function countFailure(db: Executor, key: string, limit: number, windowMs: number, now: Date): Promise<CountedFailure> {
  const resetsAt = new Date(now.getTime() + windowMs);
  const counted = await db.insertInto('oauth_failure_windows')
    .values({ key, failures: 1, resets_at: resetsAt })
    .onConflict((oc) => oc.column('key').doUpdateSet({
      failures: sql`case when oauth_failure_windows.resets_at <= ${now} then 1 else oauth_failure_windows.failures + 1 end`,
      resets_at: sql`case when oauth_failure_windows.resets_at <= ${now} then ${resetsAt} else oauth_failure_windows.resets_at end`,
    }).where(sql<boolean>`oauth_failure_windows.resets_at <= ${now} or oauth_failure_windows.failures < ${limit}`))
    .returning('resets_at')
    .executeTakeFirst();
  return counted === undefined ? { wait: Math.max(1, await secondsBlocked(db, key, limit, now)) } : { resetsAt: counted.resets_at };
}

/** Takes back a failure {@link countFailure} counted in the window ending at `resetsAt`; nothing once that window ended. */
export async function uncountFailure(db: Executor, key: string, resetsAt: Date): Promise<void> {
  await db.updateTable('oauth_failure_windows').set({ failures: sql`failures - 1` })
    .where('key', '=', key).where('resets_at', '=', resetsAt).where('failures', '>', 0)
    .execute();
}

function waitOf(row: { failures: number; resets_at: Date }, limit: number, now: Date): number {
  const remaining = row.resets_at.getTime() - now.getTime();
  return remaining > 0 && row.failures >= limit ? Math.ceil(remaining / 1000) : 0;
}

/** Windows that ended, in bounded batches (a flood from many addresses leaves many). */
export function purgeEndedFailureWindows(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_failure_windows', sql<boolean>`resets_at <= ${now}`);
}
