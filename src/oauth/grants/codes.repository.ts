/**
 * SQL of authorization codes (SPEC §5.2 step 7, §5.3). Only the code's
 * SHA-256 digest is stored. Redemption is one statement: it marks the code
 * used (atomically: of two concurrent exchanges exactly one matches
 * `used_at is null`), creates the grant and, when wanted, its first refresh
 * token row — only while the login session the code was issued under is live
 * (docs/security.md, "A code in flight dies with its session").
 */
import { sql } from 'kysely';
import { liveSessionFrom, liveSessionParams, touchedSession } from '../../accounts/sessions.ts';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { clientFirst, scopesStillAllowed, stillGrantable } from '../clients/clients.repository.ts';
import type { AuthorizationCodeStore, RedeemedCode, Redemption } from './authorization-code.ts';
import { revokeGrant } from './grants.repository.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export interface NewCode {
  digest: Buffer;
  clientRowId: number;
  userId: number;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string | null;
  nonce: string | null;
  authTime: Date;
  /** How the member signed in (RFC 8176 `amr`), from the session. */
  amr: readonly string[];
  /** The `acr` value the request asked for and the session met (OpenID Connect Core §3.1.2.1), or null. */
  acr: string | null;
  expiresAt: Date;
  /** The login session the code is issued under (its `sid`), or null. */
  sid: string | null;
  /** RFC 9449 §10: the authorization request's `dpop_jkt`, or null. */
  dpopJkt: string | null;
}

/**
 * The order in which a code's statement locks what it reads, the order every transaction that locks more
 * than one of them takes, so that none waits in a circle with another (a deadlock, which PostgreSQL ends by
 * aborting one of them): the client first (its deletion locks the client, then its consents and sign-ins),
 * then the session (a member's deletion and the end of a session delete the session before the consents
 * and codes), then the consent. Each is locked as a foreign key locks it (`for key share`).
 *
 * `client` (clients.repository.ts `clientFirst`): empty once the client was deleted, and then nothing is stored.
 */
const CLIENT_FIRST = clientFirst('$2');

/**
 * `live`: the session the code is issued under, after the client. A session that just ended records
 * nothing: the row is locked before the insert's foreign-key check, so a logout deleting it concurrently
 * makes `live` empty (the lock waits for the logout, then skips the deleted row) instead of failing that
 * check; the code itself is stored and dies with the session.
 */
const LIVE_AFTER_CLIENT = 'live as (select s.sid from sessions s where s.sid = $10 and exists (select 1 from client) for key share)';

/** After `code`: the session signed into the client (once). */
const SESSION_CLIENT = `session_client as (
    insert into oauth_session_clients (sid, client_id, user_id)
    select code.sid, code.client_id, code.user_id from code
    where code.sid in (select sid from live)
    on conflict (sid, client_id) do nothing
  )`;

/**
 * A CTE's query: the member's remembered consent for the client when it covers the scopes, locked after the
 * session (`live`, which it waits for). A revocation deleting it concurrently (app-access.repository.ts
 * `revokeAppAccess`) then serialises with the code's insert: either this statement locked it first, and the
 * revocation's delete waits for the code to be committed and then deletes it with the app's other unused
 * codes; or the delete came first, and this lock waits for it, finds the row gone, and no code is stored.
 */
const CONSENT_COVERING = (user: string, client: string, scopes: string) =>
  `select 1 from oauth_consents c where c.user_id = ${user} and c.client_id = ${client} and c.scopes @> ${scopes}::text[]
    and (select count(*) from live) >= 0 for key share`;

/**
 * The code, and the session's record that it signed into the client (Back-Channel
 * Logout 1.0 §2.1: whom to tell when the session ends), in one statement.
 */
const insertCodeStatement = statement<{ stored: number }>('insert_code', `
  with ${CLIENT_FIRST},
  ${LIVE_AFTER_CLIENT},
  code as (
    insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, expires_at, sid, dpop_jkt, amr, acr)
    select $1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10, $11, $12::text[], $13
    where exists (select 1 from client)
    returning sid, client_id, user_id
  ),
  ${SESSION_CLIENT}
  select count(*)::integer as stored from code`);

export async function insertCode(db: Executor, code: NewCode): Promise<void> {
  await insertCodeStatement.rows(db, codeValues(code));
}

const insertConsentedCodeStatement = statement<{ stored: number }>('insert_consented_code', `
  with ${CLIENT_FIRST},
  ${LIVE_AFTER_CLIENT},
  consent as (${CONSENT_COVERING('$3', '$2', '$5')}),
  code as (
    insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, expires_at, sid, dpop_jkt, amr, acr)
    select $1, $2, $3, $4, $5::text[], $6, $7, $8, $9, $10, $11, $12::text[], $13
    where exists (select 1 from consent)
      and (select version from client) = $14
    returning sid, client_id, user_id
  ),
  ${SESSION_CLIENT}
  select count(*)::integer as stored from code`);

/**
 * Stores the code only when the user's remembered consent for the client covers its scopes (SPEC §5.2 step 6)
 * and the client is still at `clientVersion`, the version its checks were made on (client-cache.ts); false otherwise.
 */
export async function insertCodeIfConsented(db: Executor, code: NewCode, clientVersion: number): Promise<boolean> {
  const [row] = await insertConsentedCodeStatement.rows(db, [...codeValues(code), clientVersion]);
  return row!.stored === 1;
}

/** A code whose member, `auth_time`, `amr` and `sid` the statement takes from the live session itself (no `acr` asked for). */
export type SessionCode = Omit<NewCode, 'userId' | 'authTime' | 'amr' | 'sid' | 'acr'>;

/**
 * The session's part of {@link insertConsentedCodeStatement} read in the same
 * statement: the live session of the cookie's digest (locked as `live` is),
 * then the code exactly as that statement stores it, and the session's
 * "last used" as sessions.ts `findSession` records it.
 */
const insertSessionCodeStatement = statement<{ stored: number }>('insert_session_code', `
  with ${CLIENT_FIRST},
  live as (
    select s.sid, s.user_id, s.auth_time, s.amr from ${liveSessionFrom('$10', '$11')} and exists (select 1 from client) for key share of s
  ),
  consent as (${CONSENT_COVERING('(select user_id from live)', '$2', '$4')}),
  code as (
    insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge, nonce, auth_time, expires_at, sid, dpop_jkt, amr, acr)
    select $1, $2, live.user_id, $3, $4::text[], $5, $6, live.auth_time, $7, live.sid, $8, live.amr, null from live
    where exists (select 1 from consent)
      and (select version from client) = $9
    returning sid, client_id, user_id
  ),
  session_client as (
    insert into oauth_session_clients (sid, client_id, user_id)
    select sid, client_id, user_id from code
    on conflict (sid, client_id) do nothing
  ),
  ${touchedSession('$10', '$11', '$12', 'code')}
  select count(*)::integer as stored from code`);

/**
 * Stores the code only when the cookie's session is live, its member's remembered consent for the client covers the
 * scopes and the client is still at `clientVersion`; false otherwise, and then nothing was written.
 */
export async function insertSessionCodeIfConsented(db: Executor, code: SessionCode, sessionDigest: Buffer, clientVersion: number, now: Date): Promise<boolean> {
  const [row] = await insertSessionCodeStatement.rows(db, [
    code.digest, code.clientRowId, code.redirectUri, [...code.scopes], code.codeChallenge, code.nonce, code.expiresAt, code.dpopJkt, clientVersion,
    ...liveSessionParams(sessionDigest, now),
  ]);
  return row!.stored === 1;
}

function codeValues(code: NewCode): unknown[] {
  return [code.digest, code.clientRowId, code.userId, code.redirectUri, [...code.scopes], code.codeChallenge, code.nonce, code.authTime, code.expiresAt, code.sid, code.dpopJkt, [...code.amr], code.acr];
}

const redeemCodeStatement = statement<RedeemedCode & { client_current: boolean }>('redeem_code', `
  with ${clientFirst('$3')},
  cv as (select coalesce((select version from client), 0) = $8 as current),
  gid as (select nextval(pg_get_serial_sequence('oauth_grants', 'id'))::integer as id),
  live as (
    select s.sid from sessions s
    where s.sid = (select c.sid from oauth_codes c where c.code_digest = $1) and s.expires_at > $2
      and exists (select 1 from client)
    for key share
  ),
  used as (
    update oauth_codes set used_at = $2, grant_id = (select id from gid)
    where code_digest = $1 and used_at is null and expires_at > $2
      and client_id = $3 and redirect_uri = $4
      and code_challenge is not distinct from $5::text
      and (dpop_jkt is null or dpop_jkt = $9::text)
      and (select current from cv)
      and sid = (select sid from live)
      and ${stillGrantable('oauth_codes', '$11', '$12')}
    returning user_id, ${scopesStillAllowed('scopes', '$11')} as scopes, nonce, auth_time, sid, amr, acr
  ),
  g as (
    insert into oauth_grants (id, client_id, user_id, scopes, auth_time, expires_at, sid, dpop_jkt, amr, acr)
    select (select id from gid), $3, user_id, scopes, auth_time, $6, sid, $10::text, amr, acr from used
    returning id, scopes
  ),
  rt as (
    insert into oauth_refresh_tokens (grant_id, scopes, expires_at)
    select id, scopes, $7::timestamptz from g where $7::timestamptz is not null
    returning id
  )
  select cv.current as client_current, g.id as grant_id, used.user_id, used.scopes, used.auth_time, used.amr, used.acr, used.nonce, used.sid,
    (select id from rt) as refresh_id
  from cv left join g on true left join used on true`);

/**
 * Redeems a live code bound to this client, redirect URI and PKCE challenge,
 * issued under a session that is still live: `code` undefined when none
 * matches; `clientCurrent` false (and nothing redeemed) when the client
 * changed since it was read.
 *
 * The client's row is locked first (`for key share`, the lock a foreign key
 * takes), as every statement that writes for a client does: a client's
 * deletion, which locks it before it deletes anything, either waits for the
 * exchange and then deletes its grant, or came first, and the exchange finds
 * the client gone (docs/security.md, "Lock order"). Then the session row
 * is locked before the code is marked, and every end of a session deletes that row
 * before it revokes the session's grants in a later statement
 * (accounts/sessions.ts). So the two serialise on the row: either this
 * exchange locked it first, the logout waits for it to commit and then sees
 * (and revokes) the grant it created; or the logout deleted it first, this
 * lock waits for the logout to commit, finds the row gone, and nothing is
 * redeemed. Never a grant that outlives the logout.
 */
export async function redeemCode(db: Executor, r: Redemption): Promise<{ clientCurrent: boolean; code: RedeemedCode | undefined }> {
  const [row] = await redeemCodeStatement.rows(db, [
    r.digest, r.now, r.clientRowId, r.redirectUri, r.challenge, r.grantExpiresAt, r.refreshExpiresAt, r.clientVersion, r.dpopJkt, r.refreshDpopJkt,
    [...r.clientScopes], [...r.requiredRegions],
  ]);
  const { client_current, ...code } = row!;
  return { clientCurrent: client_current, code: code.grant_id === null ? undefined : code };
}

/**
 * The grant issued from an already used code, for reuse detection (RFC 6749 §4.1.2): null when none
 * was, or when it was deleted since (the code's `grant_id` has no foreign key: migration 069).
 */
export async function findGrantOfUsedCode(db: Executor, digest: Buffer): Promise<number | null | undefined> {
  const row = await db.selectFrom('oauth_codes as c').leftJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .select(['c.used_at', 'g.id as grant_id']).where('c.code_digest', '=', digest).executeTakeFirst();
  if (!row || row.used_at === null) return undefined;
  return row.grant_id;
}

/**
 * Deletes the codes of this user for this client not yet exchanged (a member
 * revoking the app). In the caller's transaction, before it revokes the
 * grants: an exchange that marked one of these codes first holds its row, so
 * this waits for it to commit and the revocation that follows sees its grant;
 * an exchange that comes later finds no code.
 */
export async function deleteUnusedCodes(db: Executor, userId: number, clientRowId: number): Promise<number> {
  const result = await db.deleteFrom('oauth_codes')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).where('used_at', 'is', null).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The authorization_code grant's storage: these statements, nothing more. */
export function authorizationCodeStore(db: Executor): AuthorizationCodeStore {
  return {
    redeem: (redemption) => redeemCode(db, redemption),
    findGrantOfUsedCode: (digest) => findGrantOfUsedCode(db, digest),
    revokeGrant: async (grantId, now) => { await revokeGrant(db, grantId, now); },
  };
}

/** Codes are kept a day past expiry so that a late reuse still revokes what the code issued. */
export async function purgeExpiredCodes(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_codes', sql<boolean>`expires_at <= ${new Date(now.getTime() - 24 * 3600 * 1000)}`);
}
