/**
 * Periodic purge of expired rows so that no table grows with time (SPEC §8).
 * Every instance may run it; the deletes are idempotent.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export type PurgeTask = (db: DB, clock: Clock) => Promise<unknown>;

export async function purgeExpired(db: DB, clock: Clock, tasks: readonly PurgeTask[]): Promise<void> {
  for (const task of tasks) await task(db, clock);
}

/** Runs each area's purge (the list is wired in main.ts) every ten minutes. */
export function startMaintenance(db: DB, clock: Clock, log: FastifyBaseLogger, tasks: readonly PurgeTask[]): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpired(db, clock, tasks).catch((error: unknown) => log.warn({ err: error }, 'purge of expired rows failed'));
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
