/** The problems of the `/api` checks every operation shares (SPEC §4): login and CSRF token. */
import { ApiProblem } from './problem.ts';

export const authProblems = {
  unauthenticated: () => new ApiProblem(401, 'auth.unauthenticated', 'You must be logged in.'),
  loggedOut: () => new ApiProblem(403, 'auth.forbidden', 'You must be logged in to do this.'),
  /** REQUIRE_SECOND_FACTOR: the member's role needs a second factor, and they have none yet. */
  enrolmentRequired: (settings: string) => new ApiProblem(403, 'auth.second-factor-enrolment-required',
    `Your role requires a second factor (a passkey or one-time codes). Set one up at ${settings} first.`),
  /** REQUIRE_SECOND_FACTOR: the member has a second factor, but this session was signed in without it. */
  secondFactorRequired: (login: string) => new ApiProblem(403, 'auth.second-factor-required',
    `Your role requires signing in with your second factor (a passkey or a one-time code). Log in again at ${login}.`),
  csrfInvalid: () => new ApiProblem(403, 'auth.csrf-invalid', 'Missing or wrong X-CSRF-Token header.'),
};
