/** The problems the quiz-session operations answer with (SPEC-API): one factory per case. */
import { ApiProblem } from '../plugin/problem.ts';

export const quizProblems = {
  userNotFound: (userId: number | string) => new ApiProblem(404, 'quiz.user-not-found', `There is no user ${userId}.`),
  sessionNotFound: (sessionId: number | string) => new ApiProblem(404, 'quiz.session-not-found', `There is no quiz session ${sessionId}.`),
  othersSessions: () => new ApiProblem(403, 'quiz.forbidden', 'Only orga may see other users\' quiz sessions.'),
  notOrga: () => new ApiProblem(403, 'quiz.forbidden', 'Only orga may delete quiz sessions.'),
};
