/** The problems `/api/polls` answers with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const pollProblems = {
  notFound: () => new ApiProblem(404, 'poll.not-found', 'There is no such poll.'),
  mayNotView: () => new ApiProblem(403, 'poll.forbidden', 'You may not see this poll.'),
  notAuthor: () => new ApiProblem(403, 'poll.forbidden', 'Only the author may edit this poll.'),
  started: () => new ApiProblem(403, 'poll.started', 'Voting has started: the poll can no longer be changed.'),
};
