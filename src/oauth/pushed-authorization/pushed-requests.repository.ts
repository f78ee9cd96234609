/**
 * SQL of pushed authorization requests and their continuations (migration
 * 051): stored by the digest of their reference, taken in one statement.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export interface NewPushedRequest {
  digest: Buffer;
  clientRowId: number;
  parameters: Readonly<Record<string, string>>;
  expiresAt: Date;
}

export async function insertPushedRequest(db: Executor, request: NewPushedRequest): Promise<void> {
  await db.insertInto('oauth_pushed_requests').values({
    reference_digest: request.digest, client_id: request.clientRowId,
    parameters: JSON.stringify(request.parameters), expires_at: request.expiresAt,
  }).execute();
}

const takeStatement = statement<{ parameters: Record<string, string> }>('take_pushed_request', `
  delete from oauth_pushed_requests
  where reference_digest = $1 and client_id = $2 and expires_at > $3
  returning parameters`);

/**
 * The parameters stored under this digest for this client, deleted as they are
 * read: of two concurrent uses exactly one gets them (RFC 9126 §4: one-time
 * use); undefined when there are none, they expired, or another client pushed them.
 */
export async function takePushedRequest(db: Executor, digest: Buffer, clientRowId: number, now: Date): Promise<Record<string, string> | undefined> {
  const [row] = await takeStatement.rows(db, [digest, clientRowId, now]);
  return row?.parameters;
}

export async function purgeExpiredPushedRequests(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_pushed_requests', sql<boolean>`expires_at <= ${now}`);
}
