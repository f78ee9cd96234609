/** SQL of used DPoP proofs (migration 061): the digest of each key's jti until the proof could no longer be accepted. */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

/** Whether this jti was new for its key (and is now recorded): of two concurrent uses exactly one gets true (RFC 9449 §11.1). */
export async function recordDpopJti(db: Executor, digest: Buffer, expiresAt: Date): Promise<boolean> {
  const row = await db.insertInto('oauth_dpop_proofs').values({ jti_digest: digest, expires_at: expiresAt })
    .onConflict((oc) => oc.column('jti_digest').doNothing()).returning('jti_digest').executeTakeFirst();
  return row !== undefined;
}

export function purgeExpiredDpopProofs(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_dpop_proofs', sql<boolean>`expires_at <= ${now}`);
}
