/**
 * `demo remove` (SPEC §10): deletes the demo accounts and the demo
 * OAuth clients, so that no published demo credential works any more. Deleting
 * an account ends its sessions and removes its grants, tokens, consents and
 * what it authored (by the foreign keys' cascades; back-channel logout notices
 * are queued by migration 044's triggers); its polls go first, since they
 * restrict the deletion. Deleting a client removes its consents, codes and
 * grants. The rest of the dataset (regions, stores, quizzes, contents, toggles)
 * stays: real members and clients may use it by now, and it holds no credential.
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import { demoIdentities } from './demo-credentials.ts';

export interface DemoRemoval {
  readonly users: readonly { id: number; email: string }[];
  readonly clientIds: readonly string[];
  /** Polls the demo accounts wrote (deleted with them). */
  readonly polls: number;
}

export async function removeDemoAccounts(db: DB, log: EventLog): Promise<DemoRemoval> {
  const removal = await inTransaction(db, async (trx) => {
    const { emails, clientIds } = await demoIdentities(trx);
    const users = await trx.selectFrom('users').select(['id', 'email'])
      .where(sql<boolean>`lower(email) in (${sql.join(emails)})`).orderBy('id').execute();
    const ids = users.map((u) => u.id);
    const polls = ids.length === 0 ? 0 : Number((await trx.deleteFrom('polls').where('author_id', 'in', ids).executeTakeFirst()).numDeletedRows);
    if (ids.length > 0) await trx.deleteFrom('users').where('id', 'in', ids).execute();
    const clients = await trx.deleteFrom('oauth_clients').where('client_id', 'in', clientIds).returning('client_id').execute();
    await sql`delete from demo_summary`.execute(trx);
    return { users, clientIds: clients.map((c) => c.client_id).sort(), polls };
  });
  for (const clientId of removal.clientIds) logSecurityEvent(log, { event: 'oauth.client.deleted', clientId });
  if (removal.users.length > 0 || removal.clientIds.length > 0) {
    logSecurityEvent(log, { event: 'demo.removed', userIds: removal.users.map((u) => u.id), clientIds: removal.clientIds });
  }
  return removal;
}
