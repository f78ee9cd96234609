/** SQL for reports of one user about another. */
import type { Executor } from '../../db/executor.ts';

export interface ReportRow { id: number; reporter_id: number | null; reported_id: number }

export function findReport(db: Executor, id: number): Promise<ReportRow | undefined> {
  return db.selectFrom('reports').select(['id', 'reporter_id', 'reported_id']).where('id', '=', id).executeTakeFirst();
}

export async function deleteReport(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('reports').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function insertReport(db: Executor, report: { reporterId: number | null; reportedId: number; reason: string; message: string; createdAt: Date }): Promise<number> {
  const row = await db.insertInto('reports').values({
    reporter_id: report.reporterId, reported_id: report.reportedId, reason: report.reason, message: report.message, created_at: report.createdAt,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}
