/** The problems the content-entry operations answer with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const contentProblems = {
  notFound: (contentId: number | string) => new ApiProblem(404, 'content.not-found', `There is no content entry ${contentId}.`),
  notOrga: () => new ApiProblem(403, 'content.forbidden', 'Only orga may edit content entries.'),
};
