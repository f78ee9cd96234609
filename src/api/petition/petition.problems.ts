/** The problems `/api/petition` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const petitionProblems = {
  unavailable: (detail: string) => new ApiProblem(503, 'petition.unavailable', detail),
};
