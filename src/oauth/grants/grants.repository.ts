/**
 * SQL of grants (one per code exchange: the "family" of its refresh tokens
 * and the thing an access token's `jti` names) and their refresh-token rows.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

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

/** One indexed query: the refresh-token row, its grant and its successor's state. */
export function findRefreshToken(db: Executor, rowId: number): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('oauth_refresh_tokens as rt')
    .innerJoin('oauth_grants as g', 'g.id', 'rt.grant_id')
    .leftJoin('oauth_refresh_tokens as s', 's.id', 'rt.successor_id')
    .select([
      'rt.id', 'rt.grant_id', 'rt.scopes', 'rt.expires_at', 'rt.rotated_at', 'rt.successor_id',
      's.rotated_at as successor_rotated_at', 'g.client_id', 'g.user_id', 'g.auth_time', 'g.revoked_at',
    ])
    .where('rt.id', '=', rowId)
    .executeTakeFirst() as Promise<RefreshTokenRow | undefined>;
}

/**
 * Rotation in one statement: retires the row (only if still current, so two
 * concurrent uses cannot both rotate it), creates its successor and extends the
 * grant. Returns the successor's id, or undefined when the row was already rotated.
 */
export async function rotateRefreshToken(db: Executor, rowId: number, scopes: readonly string[], now: Date, expiresAt: Date): Promise<number | undefined> {
  const result = await sql<{ id: number }>`
    with nid as (select nextval(pg_get_serial_sequence('oauth_refresh_tokens', 'id'))::integer as id),
    old as (
      update oauth_refresh_tokens set rotated_at = ${now}, successor_id = (select id from nid)
      where id = ${rowId} and rotated_at is null
      returning grant_id
    ),
    ins as (
      insert into oauth_refresh_tokens (id, grant_id, scopes, expires_at)
      select (select id from nid), grant_id, ${sql.val([...scopes])}::text[], ${expiresAt} from old
      returning id
    ),
    g as (
      update oauth_grants set expires_at = greatest(oauth_grants.expires_at, ${expiresAt}::timestamptz)
      from old where oauth_grants.id = old.grant_id
    )
    select id from ins`.execute(db);
  return result.rows[0]?.id;
}
