/**
 * Half-done states the soak looks for after a kill: each query counts rows
 * that a write cut off in the middle would leave (the tables of
 * src/db/migrations/010_oauth.sql, 030_uploads.sql). The server's writes of a
 * code exchange and of a rotation are single statements
 * (src/oauth/grants/*.repository.ts), so every count must be 0.
 */
import type pg from 'pg';

const HALF_DONE: Array<[string, string]> = [
  ['used codes without their grant', `select count(*)::int as n from oauth_codes c
    where c.used_at is not null and (c.grant_id is null or not exists (select 1 from oauth_grants g where g.id = c.grant_id))`],
  ['grants without the used code that issued them', `select count(*)::int as n from oauth_grants g
    where not exists (select 1 from oauth_codes c where c.grant_id = g.id and c.used_at is not null)`],
  ['grants of refresh-token clients without a refresh token', `select count(*)::int as n from oauth_grants g
    join oauth_clients c on c.id = g.client_id
    where 'refresh_token' = any(c.grant_types) and not exists (select 1 from oauth_refresh_tokens r where r.grant_id = g.id)`],
  ['rotated refresh tokens without their successor', `select count(*)::int as n from oauth_refresh_tokens r
    where r.rotated_at is not null and (r.successor_id is null or not exists (
      select 1 from oauth_refresh_tokens s where s.id = r.successor_id and s.grant_id = r.grant_id))`],
  ['refresh tokens naming a successor without being rotated', `select count(*)::int as n from oauth_refresh_tokens
    where rotated_at is null and successor_id is not null`],
  ['refresh tokens that are the successor of two tokens', `select count(*)::int as n from (select successor_id from oauth_refresh_tokens
    where successor_id is not null group by successor_id having count(*) > 1) x`],
  ['live grants without exactly one unrotated refresh token (a fork or a dead end)', `select count(*)::int as n from oauth_grants g
    join oauth_clients c on c.id = g.client_id
    where g.revoked_at is null and 'refresh_token' = any(c.grant_types)
      and (select count(*) from oauth_refresh_tokens r where r.grant_id = g.id and r.rotated_at is null) <> 1`],
  ['uploads whose size is not that of their content', `select count(*)::int as n from uploads where filesize <> octet_length(content)`],
];

/** Each half-done state found, with its count. */
export async function findHalfDone(db: pg.Pool): Promise<Array<{ what: string; n: number }>> {
  const found: Array<{ what: string; n: number }> = [];
  for (const [what, text] of HALF_DONE) {
    const { rows } = await db.query<{ n: number }>(text);
    if (rows[0]!.n > 0) found.push({ what, n: rows[0]!.n });
  }
  return found;
}
