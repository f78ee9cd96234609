/** The problems `/api/push-notification` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const pushProblems = {
  unknownType: (type: string) => new ApiProblem(404, 'push.unknown-type', `There is no push notification type "${type}".`),
};
