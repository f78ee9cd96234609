/**
 * Uploads per user and time (SPEC-API `POST /api/uploads`): counted from the
 * stored uploads themselves, so every instance sees the same number without a
 * counter of its own. Parallel requests of one user may pass the count
 * together; the image queue holds at most two of them per user at a time.
 */
import type { Executor } from '../../db/executor.ts';
import { uploadProblems } from './uploads.problems.ts';
import { countUploadsSince } from './uploads.repository.ts';

export const UPLOADS_PER_WINDOW = 30;
export const UPLOAD_WINDOW_SECONDS = 10 * 60;

/** Throws 429 with `Retry-After` when the user has made {@link UPLOADS_PER_WINDOW} uploads in the window. */
export async function assertUploadRate(db: Executor, userId: number, now: Date): Promise<void> {
  const since = new Date(now.getTime() - UPLOAD_WINDOW_SECONDS * 1000);
  const { count, oldest } = await countUploadsSince(db, userId, since);
  if (count < UPLOADS_PER_WINDOW) return;
  const freeAt = (oldest ?? now).getTime() + UPLOAD_WINDOW_SECONDS * 1000;
  const seconds = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
  throw uploadProblems.tooManyUploads(UPLOADS_PER_WINDOW, UPLOAD_WINDOW_SECONDS / 60, seconds);
}
