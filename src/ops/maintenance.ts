/**
 * Periodic purge of expired rows so that no table grows with time (SPEC §8).
 * Every instance may run it; the deletes are idempotent. Each table is purged
 * in bounded batches (deleteInBatches): a backlog — a first run, an instance
 * that was down for a week, a lowered retention — never becomes one huge
 * delete holding locks and WAL, and requests are served between batches.
 */
import { sql, type Expression } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import type { Database } from '../db/schema.ts';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Rows deleted by one statement of a purge. */
export const PURGE_BATCH = 5_000;

export type PurgeTask = (db: DB, clock: Clock) => Promise<unknown>;

/**
 * Deletes the rows of `table` for which `expired` holds, at most `batch` per
 * statement, yielding to the event loop between statements; returns how many.
 * `ctid = any(array(…))` is a TID scan of the rows the indexed inner select
 * found; the condition is checked again on each row (one changed meanwhile
 * by another transaction stays).
 */
export async function deleteInBatches(db: Executor, table: keyof Database & string, expired: Expression<boolean>, batch = PURGE_BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await sql`delete from ${sql.table(table)}
      where ctid = any(array(select ctid from ${sql.table(table)} where ${expired} limit ${batch})) and ${expired}`.execute(db);
    const rows = Number(result.numAffectedRows ?? 0);
    deleted += rows;
    if (rows < batch) return deleted;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One run of every task, in order (the scheduled job; tests run it once). */
export async function purgeExpired(db: DB, clock: Clock, tasks: readonly PurgeTask[]): Promise<void> {
  for (const task of tasks) await task(db, clock);
}

/** Runs each area's purge (the list: src/purge-tasks.ts) every ten minutes. */
export function startMaintenance(db: DB, clock: Clock, log: FastifyBaseLogger, tasks: readonly PurgeTask[]): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpired(db, clock, tasks).catch((error: unknown) => log.warn({ err: error }, 'purge of expired rows failed'));
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
