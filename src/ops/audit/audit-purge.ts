/**
 * Retention of the audit log: events older than AUDIT_RETENTION_DAYS are
 * deleted by the scheduled purge (ops/maintenance.ts), a bounded batch per
 * statement so that a large backlog (a first run, a lowered retention) never
 * becomes one huge delete holding locks and WAL.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import type { PurgeTask } from '../maintenance.ts';

export const AUDIT_PURGE_BATCH = 10_000;

/** Deletes the events older than `days` days; returns how many. */
export async function purgeOldSecurityEvents(db: DB, now: Date, days: number, batch = AUDIT_PURGE_BATCH): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  let deleted = 0;
  for (;;) {
    const result = await db.deleteFrom('security_events')
      .where('id', 'in', (q) => q.selectFrom('security_events').select('id').where('occurred_at', '<', cutoff).orderBy('occurred_at').limit(batch))
      .executeTakeFirst();
    const rows = Number(result.numDeletedRows);
    deleted += rows;
    if (rows < batch) return deleted;
  }
}

export function auditPurgeTask(days: number): PurgeTask {
  return (db: DB, clock: Clock) => purgeOldSecurityEvents(db, clock(), days);
}

