/**
 * SQL of grants (one per code exchange: the "family" of its refresh tokens
 * and the thing an access token's `jti` names) and their refresh-token rows.
 */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';

export async function revokeGrant(db: Executor, grantId: number, now: Date): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('id', '=', grantId).where('revoked_at', 'is', null).execute();
}

export async function revokeGrantsOfClient(db: Executor, clientRowId: number, now: Date): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('client_id', '=', clientRowId).where('revoked_at', 'is', null).execute();
}

export async function revokeGrantsOfUserAndClient(db: Executor, userId: number, clientRowId: number, now: Date): Promise<void> {
  await db.updateTable('oauth_grants').set({ revoked_at: now })
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).where('revoked_at', 'is', null).execute();
}

/** Removes grants whose last token has expired; their refresh-token rows go with them. */
export async function purgeExpiredGrants(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('oauth_grants').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface RefreshTokenRow {
  id: number;
  grant_id: number;
  scopes: string[];
  expires_at: Date;
  rotated_at: Date | null;
  successor_id: number | null;
  successor_rotated_at: Date | null;
  client_id: number;
  user_id: number;
  auth_time: Date;
  revoked_at: Date | null;
}

const findRefreshTokenStatement = statement<RefreshTokenRow>('find_refresh_token', `
  select rt.id, rt.grant_id, rt.scopes, rt.expires_at, rt.rotated_at, rt.successor_id, s.rotated_at as successor_rotated_at,
    g.client_id, g.user_id, g.auth_time, g.revoked_at
  from oauth_refresh_tokens rt
  join oauth_grants g on g.id = rt.grant_id
  left join oauth_refresh_tokens s on s.id = rt.successor_id
  where rt.id = $1`);

/** One indexed query: the refresh-token row, its grant and its successor's state. */
export async function findRefreshToken(db: Executor, rowId: number): Promise<RefreshTokenRow | undefined> {
  return (await findRefreshTokenStatement.rows(db, [rowId]))[0];
}

const rotateStatement = statement<{ id: number }>('rotate_refresh_token', `
  with nid as (select nextval(pg_get_serial_sequence('oauth_refresh_tokens', 'id'))::integer as id),
  old as (
    update oauth_refresh_tokens set rotated_at = $2, successor_id = (select id from nid)
    where id = $1 and rotated_at is null
    returning grant_id
  ),
  ins as (
    insert into oauth_refresh_tokens (id, grant_id, scopes, expires_at)
    select (select id from nid), grant_id, $3::text[], $4::timestamptz from old
    returning id
  ),
  g as (
    update oauth_grants set expires_at = greatest(oauth_grants.expires_at, $4::timestamptz)
    from old where oauth_grants.id = old.grant_id
  )
  select id from ins`);

/**
 * Rotation in one statement: retires the row (only if still current, so two
 * concurrent uses cannot both rotate it), creates its successor and extends the
 * grant. Returns the successor's id, or undefined when the row was already rotated.
 */
export async function rotateRefreshToken(db: Executor, rowId: number, scopes: readonly string[], now: Date, expiresAt: Date): Promise<number | undefined> {
  return (await rotateStatement.rows(db, [rowId, now, [...scopes], expiresAt]))[0]?.id;
}
