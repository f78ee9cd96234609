/**
 * SQL of authorization codes (SPEC §5.2 step 7, §5.3). Only the code's
 * SHA-256 digest is stored. Redemption is one statement: it marks the code
 * used (atomically: of two concurrent exchanges exactly one matches
 * `used_at is null`), creates the grant and, when wanted, its first refresh
 * token row.
 */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import type { AuthorizationCodeStore, RedeemedCode, Redemption } from './authorization-code.ts';
import { revokeGrant } from './grants.repository.ts';

export interface NewCode {
  digest: Buffer;
  clientRowId: number;
  userId: number;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string | null;
  nonce: string | null;
  authTime: Date;
  expiresAt: Date;
  /** The login session the code is issued under (its `sid`), or null. */
  sid: string | null;
}

/** A CTE after `code`: the session signed into the client (once; a session that just ended records nothing). */
const RECORD_SESSION_CLIENT = `session_client as (
    insert into oauth_session_clients (sid, client_id, user_id)
    select code.sid, code.client_id, code.user_id from code
    where code.sid is not null and exists (select 1 from sessions s where s.sid = code.sid)
    on conflict (sid, client_id) do nothing
  )`;

/**
 * The code, and the session's record that it signed into the client (Back-Channel
 * Logout 1.0 §2.1: whom to tell when the session ends), in one statement.
 */
const insertCodeStatement = statement<{ stored: number }>('insert_code', `
  with code as (
    insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, expires_at, sid)
    values ($1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10)
    returning sid, client_id, user_id
  ),
  ${RECORD_SESSION_CLIENT}
  select count(*)::integer as stored from code`);

export async function insertCode(db: Executor, code: NewCode): Promise<void> {
  await insertCodeStatement.rows(db, codeValues(code));
}

const insertConsentedCodeStatement = statement<{ stored: number }>('insert_consented_code', `
  with code as (
    insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, expires_at, sid)
    select $1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10
    where exists (select 1 from oauth_consents c where c.user_id = $3 and c.client_id = $2 and c.scopes @> $5::text[])
    returning sid, client_id, user_id
  ),
  ${RECORD_SESSION_CLIENT}
  select count(*)::integer as stored from code`);

/** Stores the code only when the user's remembered consent for the client covers its scopes (SPEC §5.2 step 6); false otherwise. */
export async function insertCodeIfConsented(db: Executor, code: NewCode): Promise<boolean> {
  const [row] = await insertConsentedCodeStatement.rows(db, codeValues(code));
  return row!.stored === 1;
}

function codeValues(code: NewCode): unknown[] {
  return [code.digest, code.clientRowId, code.userId, code.redirectUri, [...code.scopes], code.codeChallenge, code.nonce, code.authTime, code.expiresAt, code.sid];
}

const redeemCodeStatement = statement<RedeemedCode & { client_current: boolean }>('redeem_code', `
  with cv as (select coalesce((select version from oauth_clients where id = $3), 0) = $8 as current),
  gid as (select nextval(pg_get_serial_sequence('oauth_grants', 'id'))::integer as id),
  used as (
    update oauth_codes set used_at = $2, grant_id = (select id from gid)
    where code_digest = $1 and used_at is null and expires_at > $2
      and client_id = $3 and redirect_uri = $4
      and code_challenge is not distinct from $5::text
      and (select current from cv)
    returning user_id, scopes, nonce, auth_time, sid
  ),
  g as (
    insert into oauth_grants (id, client_id, user_id, scopes, auth_time, expires_at, sid)
    select (select id from gid), $3, user_id, scopes, auth_time, $6, sid from used
    returning id, scopes
  ),
  rt as (
    insert into oauth_refresh_tokens (grant_id, scopes, expires_at)
    select id, scopes, $7::timestamptz from g where $7::timestamptz is not null
    returning id
  )
  select cv.current as client_current, g.id as grant_id, used.user_id, used.scopes, used.auth_time, used.nonce, used.sid,
    (select id from rt) as refresh_id
  from cv left join g on true left join used on true`);

/**
 * Redeems a live code bound to this client, redirect URI and PKCE challenge:
 * `code` undefined when none matches; `clientCurrent` false (and nothing
 * redeemed) when the client changed since it was read.
 */
export async function redeemCode(db: Executor, r: Redemption): Promise<{ clientCurrent: boolean; code: RedeemedCode | undefined }> {
  const [row] = await redeemCodeStatement.rows(db, [
    r.digest, r.now, r.clientRowId, r.redirectUri, r.challenge, r.grantExpiresAt, r.refreshExpiresAt, r.clientVersion,
  ]);
  const { client_current, ...code } = row!;
  return { clientCurrent: client_current, code: code.grant_id === null ? undefined : code };
}

/** The grant issued from an already used code, for reuse detection (RFC 6749 §4.1.2). */
export async function findGrantOfUsedCode(db: Executor, digest: Buffer): Promise<number | null | undefined> {
  const row = await db.selectFrom('oauth_codes').select(['used_at', 'grant_id'])
    .where('code_digest', '=', digest).executeTakeFirst();
  if (!row || row.used_at === null) return undefined;
  return row.grant_id;
}

/** The authorization_code grant's storage: these statements, nothing more. */
export function authorizationCodeStore(db: Executor): AuthorizationCodeStore {
  return {
    redeem: (redemption) => redeemCode(db, redemption),
    findGrantOfUsedCode: (digest) => findGrantOfUsedCode(db, digest),
    revokeGrant: (grantId, now) => revokeGrant(db, grantId, now),
  };
}

/** Codes are kept a day past expiry so that a late reuse still revokes what the code issued. */
export async function purgeExpiredCodes(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('oauth_codes')
    .where('expires_at', '<=', new Date(now.getTime() - 24 * 3600 * 1000)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
