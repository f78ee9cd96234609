/** The problems `/api/uploads` answers with (SPEC-API): one factory per case; the busy ones say when to retry. */
import { ApiProblem } from '../plugin/problem.ts';

const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

export const uploadProblems = {
  notFound: () => new ApiProblem(404, 'upload.not-found', 'There is no such upload.'),
  tooManyUploads: (perWindow: number, windowMinutes: number, seconds: number) => new ApiProblem(429, 'upload.rate-limited',
    `At most ${perWindow} uploads in ${windowMinutes} minutes; try again in ${Math.ceil(seconds / 60)} minutes.`, undefined, retryAfter(seconds)),
  tooManyImages: (perUser: number, seconds: number) => new ApiProblem(429, 'upload.rate-limited',
    `At most ${perUser} images of one user are processed at a time; wait for them to finish.`, undefined, retryAfter(seconds)),
  busy: (seconds: number) => new ApiProblem(503, 'upload.busy', 'Too many images are being processed; please try again shortly.',
    undefined, retryAfter(seconds)),
};
