/**
 * WebAuthn challenges (WebAuthn §13.4.3: random, at least 16 bytes, used
 * once): 32 random bytes handed to the browser, their SHA-256 digest kept
 * for five minutes, bound to what asked for them, and consumed by one delete
 * — a replayed response, or one signed for another browser's challenge, finds
 * nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export const CHALLENGE_SECONDS = 5 * 60;

export type ChallengePurpose = 'registration' | 'authentication';

export interface ChallengeBinding {
  readonly purpose: ChallengePurpose;
  /** What the challenge is for: the session's `sid` (registration), the login form's CSRF token (sign-in). */
  readonly boundTo: string;
  /** The member a registration is for. */
  readonly userId?: number | undefined;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A new challenge (base64url), stored as its digest. */
export async function issueChallenge(db: Executor, clock: Clock, binding: ChallengeBinding): Promise<string> {
  const challenge = randomBytes(32).toString('base64url');
  await db.insertInto('webauthn_challenges').values({
    challenge_digest: sha256(challenge), purpose: binding.purpose, binding_digest: sha256(binding.boundTo),
    user_id: binding.userId ?? null, expires_at: new Date(clock().getTime() + CHALLENGE_SECONDS * 1000),
  }).execute();
  return challenge;
}

/**
 * Takes the challenge a response was signed over: true once when it was
 * issued for this purpose and binding and has not expired; never again.
 */
export async function consumeChallenge(db: Executor, clock: Clock, challenge: string, binding: ChallengeBinding): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{16,200}$/.test(challenge)) return false;
  let query = db.deleteFrom('webauthn_challenges')
    .where('challenge_digest', '=', sha256(challenge)).where('purpose', '=', binding.purpose)
    .where('binding_digest', '=', sha256(binding.boundTo)).where('expires_at', '>', clock());
  if (binding.userId !== undefined) query = query.where('user_id', '=', binding.userId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The scheduled purge's part: challenges never answered (every sign-in form asks for one) past expiry. */
export function purgeExpiredChallenges(db: Executor, clock: Clock): Promise<number> {
  return deleteInBatches(db, 'webauthn_challenges', sql<boolean>`expires_at <= ${clock()}`);
}
