/**
 * The apps that can reach a member's data (SPEC §5.6, `/settings/apps`): every
 * client the member remembered consent for, and every client holding a live
 * grant — a refresh token or an access token that has not expired — whether
 * or not the consent was remembered. An app allowed once, without
 * "remember", keeps its refresh token for a month; a page that hid it would
 * leave the member no way to see or stop it.
 */
import { sql } from 'kysely';
import { lockLiveMember } from '../../accounts/member-status.ts';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { endSignInsOfApp } from '../backchannel/app-revocation.ts';
import { deleteUnusedCodes } from '../grants/codes.repository.ts';
import { revokeGrantsOfUserAndClient } from '../grants/grants.repository.ts';
import { sortScopes, type Scope } from '../scopes.ts';

export interface AppWithAccess {
  clientId: string;
  name: string;
  /** The remembered consent's scopes and those of every live grant. */
  scopes: Scope[];
  /** When the consent was given or last widened; without one, the oldest live grant. */
  grantedAt: Date;
  /** Whether the app may sign the member in again without asking. */
  remembered: boolean;
}

interface AppRow { client_id: string; name: string; scopes: string[]; granted_at: Date; remembered: boolean }

/** The member's apps with access at `now`, by name. */
export async function listAppsWithAccess(db: Executor, userId: number, now: Date): Promise<AppWithAccess[]> {
  const { rows } = await sql<AppRow>`
    with live as (
      select g.client_id, array_agg(distinct s) as scopes, min(g.created_at) as since
      from oauth_grants g cross join lateral unnest(g.scopes) s
      where g.user_id = ${userId} and g.revoked_at is null and g.expires_at > ${now}
      group by g.client_id
    )
    select c.client_id, c.name, coalesce(k.updated_at, l.since) as granted_at, k.user_id is not null as remembered,
      array(select distinct s from unnest(coalesce(k.scopes, '{}'::text[]) || coalesce(l.scopes, '{}'::text[])) s) as scopes
    from oauth_clients c
    left join oauth_consents k on k.client_id = c.id and k.user_id = ${userId}
    left join live l on l.client_id = c.id
    where k.user_id is not null or l.client_id is not null
    order by c.name, c.client_id`.execute(db);
  return rows.map((r) => ({ clientId: r.client_id, name: r.name, scopes: sortScopes(r.scopes), grantedAt: new Date(r.granted_at), remembered: r.remembered }));
}

/** How many apps hold a live grant of the member at `now` (a refresh or access token that can still be used). */
export async function countAppsWithLiveGrants(db: Executor, userId: number, now: Date): Promise<number> {
  const row = await db.selectFrom('oauth_grants').select(sql<string>`count(distinct client_id)`.as('count'))
    .where('user_id', '=', userId).where('revoked_at', 'is', null).where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Takes an app's access away: forgets the consent, deletes the codes not yet
 * exchanged, revokes every grant of this member for this client (refresh and
 * access tokens) and ends the client's
 * sign-ins of the member (back-channel logout notices, queued in the same
 * transaction). Returns false when the app had neither, or is unknown.
 */
export async function revokeAppAccess(db: Executor, clock: Clock, userId: number, clientId: string): Promise<boolean> {
  const now = clock();
  const client = await db.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).executeTakeFirst();
  if (!client) return false;
  // Both or neither: a forgotten consent with live tokens would look revoked on the page and still work.
  return inTransaction(db, async (trx) => {
    // The member's row first (docs/security.md, "Lock order"): a disable or a deletion, which ends the member's
    // sessions (and with them these sign-ins) before their codes, waits for this or this for it; so does a
    // second revocation of the same app at once.
    await lockLiveMember(trx, userId);
    const consents = await trx.deleteFrom('oauth_consents')
      .where('user_id', '=', userId).where('client_id', '=', client.id).executeTakeFirst();
    // The codes first, then the grants: a concurrent exchange's grant is among them (codes.repository.ts `deleteUnusedCodes`).
    const codes = await deleteUnusedCodes(trx, userId, client.id);
    if (Number(consents.numDeletedRows) === 0 && codes === 0 && !(await holdsLiveGrant(trx, userId, client.id, now))) return false;
    // The sign-ins before the grants, in the order a logout takes them (it deletes the session, and with it these
    // rows, then revokes the session's grants): in the other order the two waited for each other.
    await endSignInsOfApp(trx, userId, client.id, now);
    await revokeGrantsOfUserAndClient(trx, userId, client.id, now);
    return true;
  });
}

/** Whether the member has a grant of the client not revoked and not expired at `now` (read, not locked). */
async function holdsLiveGrant(db: Executor, userId: number, clientRowId: number, now: Date): Promise<boolean> {
  const row = await db.selectFrom('oauth_grants').select('id')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).where('revoked_at', 'is', null).where('expires_at', '>', now)
    .limit(1).executeTakeFirst();
  return row !== undefined;
}
