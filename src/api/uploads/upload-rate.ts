/**
 * Uploads per user and time (SPEC-API `POST /api/uploads`): counted from the
 * stored uploads themselves, so every instance sees the same number without a
 * counter of its own. Counted twice: before any work (a user over the rate is
 * refused at once), and again where the upload is stored, under a lock of the
 * user's, so that uploads sent at once cannot pass the count together.
 */
import type { Transaction } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { inTransaction, lockForTransactionOf } from '../../db/transaction.ts';
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

/**
 * Runs `store` unless the user has reached the rate meanwhile (429): counted and stored under the user's
 * lock, at the time it is stored (`now`: an image's work may have taken seconds since the request came),
 * so that the upload leaves the window, and `Retry-After` counts, from when it was stored.
 */
export async function storeWithinUploadRate(
  db: Executor, userId: number, clock: Clock, store: (trx: Transaction<Database>, now: Date) => Promise<void>,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    await lockForTransactionOf(trx, 'upload-count', userId);
    const now = clock();
    await assertUploadRate(trx, userId, now);
    await store(trx, now);
  });
}
