/** The problems `/api/feature-toggles` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const featureToggleProblems = {
  notFound: (identifier: string) => new ApiProblem(404, 'feature-toggle.not-found', `There is no feature toggle "${identifier}".`),
  notOrga: () => new ApiProblem(403, 'auth.forbidden', 'Only organisation members may switch feature toggles.'),
};
