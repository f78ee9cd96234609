/** The problems `DELETE /api/report/{reportId}` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const reportProblems = {
  notFound: (reportId: number | string) => new ApiProblem(404, 'report.not-found', `There is no report ${reportId}.`),
  mayNotDelete: () => new ApiProblem(403, 'report.forbidden', 'Only orga may delete reports, and not reports about themselves.'),
};
