/** Remembered consents ("remember this choice", SPEC §5.2 step 6, §5.6). */
import { sql } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { sortScopes, type Scope } from '../scopes.ts';
import { endSignInsOfApp } from '../backchannel/app-revocation.ts';
import { deleteUnusedCodes } from '../grants/codes.repository.ts';
import { revokeGrantsOfUserAndClient } from '../grants/grants.repository.ts';

export interface RememberedApp {
  clientId: string;
  name: string;
  scopes: Scope[];
  /** When the consent was first given or last widened. */
  grantedAt: Date;
}

/** The apps a user remembered consent for, by name. */
export async function listRememberedApps(db: Executor, userId: number): Promise<RememberedApp[]> {
  const rows = await db.selectFrom('oauth_consents')
    .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_consents.client_id')
    .select(['oauth_clients.client_id', 'oauth_clients.name', 'oauth_consents.scopes', 'oauth_consents.updated_at'])
    .where('oauth_consents.user_id', '=', userId)
    .orderBy('oauth_clients.name').orderBy('oauth_clients.client_id')
    .execute();
  return rows.map((r) => ({ clientId: r.client_id, name: r.name, scopes: sortScopes(r.scopes), grantedAt: r.updated_at }));
}

/**
 * Forgets the consent, deletes the codes not yet exchanged, revokes every
 * grant of this user for this client (its refresh tokens and access tokens;
 * after the codes, so that a concurrent exchange's grant is among them:
 * codes.repository.ts `deleteUnusedCodes`) and, when there was a consent, ends the
 * client's sign-ins of the user: its back-channel logout notices are queued
 * in the same transaction. Returns false when there was no consent for a
 * known client (grants are revoked all the same), or the client is unknown.
 */
export async function revokeConsent(db: Executor, clock: Clock, userId: number, clientId: string): Promise<boolean> {
  const now = clock();
  const client = await db.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).executeTakeFirst();
  if (!client) return false;
  // Both or neither: a forgotten consent with live tokens would look revoked on the page and still work.
  return inTransaction(db, async (trx) => {
    const deleted = await trx.deleteFrom('oauth_consents')
      .where('user_id', '=', userId).where('client_id', '=', client.id).executeTakeFirst();
    await deleteUnusedCodes(trx, userId, client.id);
    await revokeGrantsOfUserAndClient(trx, userId, client.id, now);
    if (Number(deleted.numDeletedRows) === 0) return false;
    await endSignInsOfApp(trx, userId, client.id, now);
    return true;
  });
}

/** The scopes a user remembered consent for (the authorization endpoint checks them inside its code statement). */
export async function findConsentScopes(db: Executor, userId: number, clientRowId: number): Promise<string[] | undefined> {
  const row = await db.selectFrom('oauth_consents').select('scopes')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).executeTakeFirst();
  return row?.scopes;
}

/** Stores a consent; an existing one is widened to the union of both scope sets. */
export async function rememberConsent(db: Executor, userId: number, clientRowId: number, scopes: readonly string[], now: Date): Promise<void> {
  await db.insertInto('oauth_consents')
    .values({ user_id: userId, client_id: clientRowId, scopes: [...scopes], created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({
      scopes: sql<string[]>`array(select distinct s from unnest(oauth_consents.scopes || excluded.scopes) s order by s)`,
      updated_at: now,
    }))
    .execute();
}
