/** Removing a report (SPEC-API: DELETE /api/report/{reportId}). */
import type { DB } from '../../db/database.ts';
import { ApiProblem } from '../plugin/problem.ts';
import type { Actor } from '../region-access.repository.ts';
import { mayDeleteReport } from './reports.policy.ts';
import { deleteReport, findReport } from './reports.repository.ts';

export async function removeReport(db: DB, actor: Actor, reportId: number): Promise<void> {
  const report = await findReport(db, reportId);
  if (!report) throw new ApiProblem(404, 'report.not-found', `There is no report ${reportId}.`);
  if (!mayDeleteReport(actor, { reportedId: report.reported_id })) {
    throw new ApiProblem(403, 'report.forbidden', 'Only orga may delete reports, and not reports about themselves.');
  }
  if (!(await deleteReport(db, report.id))) throw new ApiProblem(404, 'report.not-found', `There is no report ${reportId}.`);
}
