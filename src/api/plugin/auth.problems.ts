/** The problems of the `/api` checks every operation shares (SPEC §4): login and CSRF token. */
import { ApiProblem } from './problem.ts';

export const authProblems = {
  unauthenticated: () => new ApiProblem(401, 'auth.unauthenticated', 'You must be logged in.'),
  loggedOut: () => new ApiProblem(403, 'auth.forbidden', 'You must be logged in to do this.'),
  csrfInvalid: () => new ApiProblem(403, 'auth.csrf-invalid', 'Missing or wrong X-CSRF-Token header.'),
};
