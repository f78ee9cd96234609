/**
 * Periodic purge of expired rows so that no table grows with time (SPEC §8).
 * Every instance may run it; the deletes are idempotent.
 */
import type { FastifyBaseLogger } from 'fastify';
import { purgeExpiredThrottles } from '../accounts/login-throttle.ts';
import { purgeExpiredSessions } from '../accounts/sessions.ts';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { purgeExpiredOAuthRows } from '../oauth/oauth.purge.ts';

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export type PurgeTask = (db: DB, clock: Clock) => Promise<unknown>;

/** Each area registers its purge here. */
export const PURGE_TASKS: readonly PurgeTask[] = [purgeExpiredSessions, purgeExpiredThrottles, purgeExpiredOAuthRows];

export async function purgeExpired(db: DB, clock: Clock): Promise<void> {
  for (const task of PURGE_TASKS) await task(db, clock);
}

export function startMaintenance(db: DB, clock: Clock, log: FastifyBaseLogger): { stop(): void } {
  const timer = setInterval(() => {
    purgeExpired(db, clock).catch((error: unknown) => log.warn({ err: error }, 'purge of expired rows failed'));
  }, PURGE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
