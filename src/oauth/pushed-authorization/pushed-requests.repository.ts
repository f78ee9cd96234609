/**
 * SQL of pushed authorization requests and their continuations (migration
 * 051): stored by the digest of their reference, taken in one statement.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { clientFirst } from '../clients/clients.repository.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export interface NewPushedRequest {
  digest: Buffer;
  clientRowId: number;
  /** The client's version its checks were made on: nothing is stored when it changed since, or it is gone. */
  clientVersion: number;
  parameters: Readonly<Record<string, string>>;
  expiresAt: Date;
}

const insertStatement = statement<{ stored: number }>('insert_pushed_request', `
  with ${clientFirst('$2')},
  stored as (
    insert into oauth_pushed_requests (reference_digest, client_id, parameters, expires_at)
    select $1, $2, $3::jsonb, $4 where (select version from client) = $5
    returning 1
  )
  select count(*)::integer as stored from stored`);

/**
 * Whether the request was stored: not when the client changed or was deleted since it was read. Its row is
 * locked first, so a deletion at the same moment either waits for the request (and deletes it) or is
 * seen, instead of failing the request's foreign key.
 */
export async function insertPushedRequest(db: Executor, request: NewPushedRequest): Promise<boolean> {
  const [row] = await insertStatement.rows(db, [request.digest, request.clientRowId, JSON.stringify(request.parameters), request.expiresAt, request.clientVersion]);
  return row!.stored === 1;
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

/** Whether a live request of this client is stored under this digest; nothing is taken. */
export async function hasLivePushedRequest(db: Executor, digest: Buffer, clientRowId: number, now: Date): Promise<boolean> {
  const row = await db.selectFrom('oauth_pushed_requests').select('client_id')
    .where('reference_digest', '=', digest).where('client_id', '=', clientRowId).where('expires_at', '>', now).executeTakeFirst();
  return row !== undefined;
}

export async function purgeExpiredPushedRequests(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_pushed_requests', sql<boolean>`expires_at <= ${now}`);
}
