/**
 * Retention of the audit log: events older than AUDIT_RETENTION_DAYS are
 * deleted by the scheduled purge (ops/maintenance.ts), in bounded batches.
 */
import { sql } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { deleteInBatches, type PurgeTask } from '../maintenance.ts';

export const AUDIT_PURGE_BATCH = 10_000;

/** Deletes the events older than `days` days; returns how many. */
export async function purgeOldSecurityEvents(db: DB, now: Date, days: number, batch = AUDIT_PURGE_BATCH): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  return deleteInBatches(db, 'security_events', sql<boolean>`occurred_at < ${cutoff}`, batch);
}

export function auditPurgeTask(days: number): PurgeTask {
  return (db: DB, clock: Clock) => purgeOldSecurityEvents(db, clock(), days);
}
