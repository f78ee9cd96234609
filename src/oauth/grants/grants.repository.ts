/**
 * SQL of grants (one per code exchange: the "family" of its refresh tokens
 * and the thing an access token's `jti` names) and their refresh-token rows.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { scopesStillAllowed } from '../clients/clients.repository.ts';
import type { RefreshTokenRow, RefreshTokenStore, RefreshTokenUse, RefreshTokenUseInput } from './refresh-token.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

/** Whether the grant was live (not revoked before). */
export async function revokeGrant(db: Executor, grantId: number, now: Date): Promise<boolean> {
  const result = await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('id', '=', grantId).where('revoked_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function revokeGrantsOfClient(db: Executor, clientRowId: number, now: Date): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('client_id', '=', clientRowId).where('revoked_at', 'is', null).execute();
}

export async function revokeGrantsOfUserAndClient(db: Executor, userId: number, clientRowId: number, now: Date): Promise<number> {
  const result = await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).where('revoked_at', 'is', null)
    .where('expires_at', '>', now).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes grants whose last token has expired; their refresh-token rows go with them. */
export async function purgeExpiredGrants(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_grants', sql<boolean>`expires_at <= ${now}`);
}

const findRefreshTokenStatement = statement<RefreshTokenRow>('find_refresh_token', `
  select rt.id, rt.grant_id, rt.scopes, rt.expires_at, rt.rotated_at, rt.successor_id, s.rotated_at as successor_rotated_at,
    g.client_id, g.user_id, g.auth_time, g.amr, g.acr, g.revoked_at, g.sid, g.dpop_jkt
  from oauth_refresh_tokens rt
  join oauth_grants g on g.id = rt.grant_id
  left join oauth_refresh_tokens s on s.id = rt.successor_id
  where rt.id = $1`);

/** One indexed query: the refresh-token row, its grant and its successor's state. */
export async function findRefreshToken(db: Executor, rowId: number): Promise<RefreshTokenRow | undefined> {
  return (await findRefreshTokenStatement.rows(db, [rowId]))[0];
}

/**
 * How far past its newest refresh token a grant is kept when a rotation extends it. A rotation
 * whose new token the grant already outlives leaves the grant's row alone: a client refreshing
 * every few minutes writes it once an hour, where each rotation rewrote it (a new version of the
 * row in each of its five indexes, since `expires_at` is one of them). Every token carries its
 * own expiry; the grant's only says when its last one ends, for the purge and the member's list
 * of apps, which may show the app up to this much longer.
 */
const GRANT_EXPIRY_MARGIN = '1 hour';

const useStatement = statement<RefreshTokenUse>('use_refresh_token', `
  with cur as (
    select rt.id, rt.grant_id, rt.scopes, rt.expires_at, rt.rotated_at, rt.successor_id, s.rotated_at as successor_rotated_at,
      g.client_id, g.user_id, g.auth_time, g.amr, g.acr, g.revoked_at, g.sid, g.dpop_jkt,
      (cardinality($5::integer[]) = 0 or exists (
        select 1 from region_memberships m where m.user_id = g.user_id and m.region_id = any($5::integer[]))) as in_regions,
      coalesce((select c.version from oauth_clients c where c.id = $3), 0) = $7 as client_current
    from oauth_refresh_tokens rt
    join oauth_grants g on g.id = rt.grant_id
    left join oauth_refresh_tokens s on s.id = rt.successor_id
    where rt.id = $1
  ),
  nid as (select nextval(pg_get_serial_sequence('oauth_refresh_tokens', 'id'))::integer as id),
  old as (
    update oauth_refresh_tokens r set rotated_at = $2, successor_id = (select id from nid)
    from cur
    where r.id = cur.id and r.rotated_at is null
      and cur.client_id = $3 and cur.client_current and cur.revoked_at is null and cur.expires_at > $2 and cur.in_regions
      and ($6::text[] is null or cur.scopes @> $6::text[])
      and cur.scopes && $10::text[] and ($6::text[] is null or $10::text[] @> $6::text[])
      and (cur.dpop_jkt is null or cur.dpop_jkt = $8::text)
    returning r.grant_id, ${scopesStillAllowed('r.scopes', '$10')} as scopes
  ),
  ins as (
    insert into oauth_refresh_tokens (id, grant_id, scopes, expires_at)
    select (select id from nid), grant_id, scopes, $4::timestamptz from old
    returning id
  ),
  g as (
    update oauth_grants set expires_at = greatest(oauth_grants.expires_at, $4::timestamptz + interval '${GRANT_EXPIRY_MARGIN}'),
      dpop_jkt = coalesce(oauth_grants.dpop_jkt, $9::text)
    from old where oauth_grants.id = old.grant_id
      and (oauth_grants.expires_at < $4::timestamptz or (oauth_grants.dpop_jkt is null and $9::text is not null))
  )
  select cur.*, (select id from ins) as rotated_to from cur`);

/**
 * A use of a refresh token in one statement: reads the row, its grant and its
 * successor's state and, when the row is current, bound to this client, live,
 * in the required regions and the requested scopes are covered, rotates it
 * (retires it, creates its successor, extends the grant when it would end
 * before the successor — see {@link GRANT_EXPIRY_MARGIN} — and binds it to
 * `refreshDpopJkt` unless it is bound already). Of two concurrent
 * uses only one rotates (`rotated_at is null` is rechecked under the row lock);
 * the other sees `rotated_to: null`. Undefined when the row does not exist.
 */
export async function useRefreshToken(db: Executor, u: RefreshTokenUseInput): Promise<RefreshTokenUse | undefined> {
  const rows = await useStatement.rows(db, [
    u.rowId, u.now, u.clientRowId, u.expiresAt, [...u.requiredRegions], u.requestedScopes === null ? null : [...u.requestedScopes], u.clientVersion, u.dpopJkt, u.refreshDpopJkt,
    [...u.clientScopes],
  ]);
  return rows[0];
}

/** The refresh_token grant's storage: these statements, nothing more. */
export function refreshTokenStore(db: Executor): RefreshTokenStore {
  return {
    use: (input) => useRefreshToken(db, input),
    find: (rowId) => findRefreshToken(db, rowId),
    revokeGrant: async (grantId, now) => { await revokeGrant(db, grantId, now); },
  };
}
