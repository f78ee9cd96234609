/** Removing a report (SPEC-API: DELETE /api/report/{reportId}). */
import type { DB } from '../../db/database.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { mayDeleteReport } from './reports.policy.ts';
import { reportProblems } from './reports.problems.ts';
import { deleteReport, findReport } from './reports.repository.ts';

/** 404 → 403 → `checkInput()` (the query) → deletes. */
export async function removeReport(db: DB, actor: Actor, reportId: PathId, checkInput: () => void): Promise<void> {
  const report = await findReport(db, reportId.row);
  if (!report) throw reportProblems.notFound(reportId.sent);
  if (!mayDeleteReport(actor, { reportedId: report.reported_id })) {
    throw reportProblems.mayNotDelete();
  }
  checkInput();
  if (!(await deleteReport(db, report.id))) throw reportProblems.notFound(reportId.sent);
}
