/** SQL of used client assertions (migration 054): the digest of each jti until the assertion expires. */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

/** Whether this jti was new (and is now recorded): of two concurrent uses exactly one gets true (RFC 7523 §3 item 7). */
export async function recordAssertionJti(db: Executor, digest: Buffer, expiresAt: Date): Promise<boolean> {
  const row = await db.insertInto('oauth_client_assertions').values({ jti_digest: digest, expires_at: expiresAt })
    .onConflict((oc) => oc.column('jti_digest').doNothing()).returning('jti_digest').executeTakeFirst();
  return row !== undefined;
}

export async function purgeExpiredAssertions(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_client_assertions', sql<boolean>`expires_at <= ${now}`);
}
