/**
 * Login sessions (SPEC §4): a random 256-bit id lives only in the browser's
 * cookie; the database keeps its SHA-256 digest, the CSRF token and the expiry.
 */
import { sql } from 'kysely';
import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { statement } from '../db/statement.ts';
import { inTransaction } from '../db/transaction.ts';
import { PASSWORD_ONLY, type AuthenticationMethod } from './authentication-methods.ts';
import type { SessionDevice } from './session-device.ts';
import type { UserRow } from './users.repository.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

/** Without "stay logged in". */
export const SHORT_SESSION_SECONDS = 8 * 3600;
/** With "stay logged in". */
export const LONG_SESSION_SECONDS = 14 * 24 * 3600;

export interface NewSession {
  /** The secret cookie value; never stored. */
  readonly id: string;
  /** The public session id (OpenID Connect `sid`), put in ID tokens; reveals nothing of `id`. */
  readonly sid: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  readonly remember: boolean;
}

export interface SessionContext {
  readonly user: UserRow;
  /** The public session id (OpenID Connect `sid`). */
  readonly sid: string;
  readonly csrfToken: string;
  readonly authTime: Date;
  /** How the member signed in (RFC 8176 `amr`), as the ID tokens of the session state it. */
  readonly amr: readonly string[];
  readonly expiresAt: Date;
  readonly remember: boolean;
  /** When the session was last used before this request, as recorded (at most every {@link LAST_SEEN_RESOLUTION_SECONDS}). */
  readonly lastSeenAt: Date;
}

export function digestSessionId(id: string): Buffer {
  // The one-shot `hash`: about 0.5 µs less than a `Hash` object per call, on every request with a session.
  return hash('sha256', id, 'buffer');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Starts a session, or renews the one this browser has (`replacing`, its
 * cookie value) when it is the same member's and still live: a new cookie
 * value, CSRF token, `auth_time` and expiry, the same `sid` — a
 * re-authentication (prompt=login, max_age) continues the OP session, so the
 * apps it signed into are not logged out. Another member's session, or an
 * expired one, is deleted and a new one begins. `amr` is how the member
 * signed in this time (a renewal records the new methods, not the old).
 */
export async function createSession(
  db: Executor, clock: Clock, userId: number, remember: boolean, replacing?: string, device: SessionDevice = { userAgent: null, network: null },
  amr: readonly AuthenticationMethod[] = PASSWORD_ONLY,
): Promise<NewSession> {
  const id = randomToken();
  const csrfToken = randomToken();
  const now = clock();
  const expiresAt = new Date(now.getTime() + (remember ? LONG_SESSION_SECONDS : SHORT_SESSION_SECONDS) * 1000);
  const values = {
    id_digest: digestSessionId(id), csrf_token: csrfToken, remember, auth_time: now, expires_at: expiresAt,
    last_seen_at: now, user_agent: device.userAgent, network: device.network, amr: [...amr],
  };
  if (replacing !== undefined) {
    const renewed = await db.updateTable('sessions').set(values).returning('sid')
      .where('id_digest', '=', digestSessionId(replacing)).where('user_id', '=', userId).where('expires_at', '>', now)
      .executeTakeFirst();
    if (renewed) return { id, sid: renewed.sid, csrfToken, expiresAt, remember };
    await deleteSession(db, replacing);
  }
  const sid = randomToken();
  await db.insertInto('sessions').values({ ...values, sid, user_id: userId, created_at: now }).execute();
  return { id, sid, csrfToken, expiresAt, remember };
}

/** Why a sign-in proved a moment ago may not begin its session: the member was disabled, or what it proved lapsed. */
export type SignInRefused = 'disabled' | 'lapsed';

/**
 * Holds the member's row against a change (`for share`) until the transaction ends, and says whether a
 * sign-in may still go on: the member exists and is not disabled and, for a sign-in with the password,
 * `passwordHash` (the hash the password was verified against) is still theirs. A password change, a
 * reset, `user set-password`, a disable and a deletion update that row first and then end the member's
 * sessions and second steps in the same transaction, so each serialises with a sign-in on it: either the
 * change waits for the sign-in's commit and then ends what it began, or the sign-in waits for the change's,
 * sees it, and begins nothing (docs/security.md, "A sign-in racing a password change").
 */
export async function holdMemberForSignIn(trx: Executor, userId: number, passwordHash?: string): Promise<SignInRefused | undefined> {
  const member = await trx.selectFrom('users').select(['password_hash', 'disabled_at', 'deleted_at'])
    .where('id', '=', userId).forShare().executeTakeFirst();
  if (member === undefined || member.deleted_at !== null) return 'lapsed';
  if (member.disabled_at !== null) return 'disabled';
  return passwordHash === undefined || member.password_hash === passwordHash ? undefined : 'lapsed';
}

/**
 * Whether the member's session `sid` is still live, its row then held (`for key share`) until the
 * transaction ends: a change made in a session (a passkey added, the password changed) is written only
 * while it lives. An end of the session at the same moment (a logout, "end sessions", a reset, a
 * disable) either waits for the change, and then ends the session after it, or came first, and the
 * change finds the session gone.
 */
export async function holdLiveSession(trx: Executor, sid: string, userId: number, now: Date): Promise<boolean> {
  const session = await trx.selectFrom('sessions as s').innerJoin('users as u', 'u.id', 's.user_id').select('s.sid')
    .where('s.sid', '=', sid).where('s.user_id', '=', userId).where('s.expires_at', '>', now).where('u.disabled_at', 'is', null)
    .forKeyShare('s').executeTakeFirst();
  return session !== undefined;
}

/** What {@link beginSession} starts, and what it must still find when it does. */
export interface SessionBeginning {
  readonly userId: number;
  readonly remember: boolean;
  /** The browser's session cookie (see {@link createSession}). */
  readonly replacing?: string | undefined;
  readonly device?: SessionDevice;
  readonly amr: readonly AuthenticationMethod[];
  /** The hash the sign-in verified the password against, when it used one. */
  readonly passwordHash?: string | undefined;
  /** What the sign-in uses up (a second step's pending login), taken with the member's row held: false when it is gone. */
  readonly claim?: ((trx: Executor) => Promise<boolean>) | undefined;
}

/**
 * {@link createSession}, in one transaction with {@link holdMemberForSignIn} and `claim`: the session, or
 * why the sign-in may not begin it, and then nothing was written.
 */
export async function beginSession(db: Executor, clock: Clock, b: SessionBeginning): Promise<NewSession | SignInRefused> {
  return inTransaction(db, async (trx) => {
    const refused = await holdMemberForSignIn(trx, b.userId, b.passwordHash);
    if (refused) return refused;
    if (b.claim && !(await b.claim(trx))) return 'lapsed';
    return createSession(trx, clock, b.userId, b.remember, b.replacing, b.device, b.amr);
  });
}

/**
 * A new cookie value and CSRF token for this live session of the member, after a change of what it
 * may do (OWASP Session Management Cheat Sheet: renew the id after a privilege change — a password
 * changed, a second factor set up): the same `sid`, `auth_time` and expiry, the methods `amr` when
 * given (a factor just proved), else the same. Undefined when the session is no longer live.
 */
export async function renewSessionId(db: Executor, clock: Clock, id: string, userId: number, amr?: readonly AuthenticationMethod[]): Promise<NewSession | undefined> {
  const newId = randomToken();
  const csrfToken = randomToken();
  const renewed = await db.updateTable('sessions')
    .set({ id_digest: digestSessionId(newId), csrf_token: csrfToken, ...(amr === undefined ? {} : { amr: [...amr] }) })
    .where('id_digest', '=', digestSessionId(id)).where('user_id', '=', userId).where('expires_at', '>', clock())
    .returning(['sid', 'expires_at', 'remember']).executeTakeFirst();
  return renewed && { id: newId, sid: renewed.sid, csrfToken, expiresAt: renewed.expires_at, remember: renewed.remember };
}

type SessionRow = UserRow & { sid: string; csrf_token: string; auth_time: Date; amr: string[]; expires_at: Date; remember: boolean; last_seen_at: Date };

/**
 * The one definition of a live session, for every statement that reads one:
 * `from` this, `s` is the session whose cookie digests to the parameter
 * `digest` and `u` its member, unless it expired before `now` or the member
 * is disabled.
 */
export function liveSessionFrom(digest: string, now: string): string {
  return `sessions s join users u on u.id = s.user_id where s.id_digest = ${digest} and s.expires_at > ${now} and u.disabled_at is null`;
}

const liveSession = statement<SessionRow>('find_session', `
  select u.id, u.email, u.first_name, u.last_name, u.photo, u.role, u.verified, u.sleeping, u.home_region_id,
    s.sid, s.csrf_token, s.auth_time, s.amr, s.expires_at, s.remember, s.last_seen_at
  from ${liveSessionFrom('$1', '$2')}`);

/** A session's "last used" is written at most this often: not a write per request. */
export const LAST_SEEN_RESOLUTION_SECONDS = 5 * 60;

const touchSession = statement('touch_session', 'update sessions set last_seen_at = $2 where id_digest = $1');

/** What a statement that reads the session itself ({@link inLiveSession}) takes as its parameters $1–$3. */
export type LiveSessionParams = readonly [digest: Buffer, now: Date, lastSeenBefore: Date];

export function liveSessionParams(digest: Buffer, now: Date): LiveSessionParams {
  return [digest, now, new Date(now.getTime() - LAST_SEEN_RESOLUTION_SECONDS * 1000)];
}

/**
 * The CTE `touched` of a statement that reads the session itself: the session's "last used" recorded
 * as {@link findSession} records it (at most every {@link LAST_SEEN_RESOLUTION_SECONDS}), when `from`
 * has a row. The parameters name the cookie's digest, the request's time and {@link liveSessionParams}' third.
 */
export function touchedSession(digest: string, now: string, lastSeenBefore: string, from: string): string {
  return `touched as (update sessions set last_seen_at = ${now} where id_digest = ${digest} and last_seen_at <= ${lastSeenBefore} and exists (select 1 from ${from}))`;
}

/**
 * A statement that reads the session itself, in front of `select`: `live` has one row (`user_id`) while
 * the session whose cookie digests to $1 is live at $2, none otherwise, and the session's "last used" is
 * recorded as {@link findSession} records it. The parameters $1–$3 are {@link liveSessionParams}'; the
 * statement's own start at $4. `select` reads `from live`, so that no row means no session.
 */
export function inLiveSession(select: string): string {
  return `with live as (select u.id as user_id from ${liveSessionFrom('$1', '$2')}),
  ${touchedSession('$1', '$2', '$3', 'live')}
  ${select}`;
}

/** {@link inLiveSessionWithCsrf}'s parameters $1–$4: {@link LiveSessionParams}, then the presented CSRF token's digest. */
export type CheckedSessionParams = readonly [digest: Buffer, now: Date, lastSeenBefore: Date, csrfTokenDigest: Buffer];

export function checkedSessionParams(digest: Buffer, now: Date, presentedCsrfToken: string): CheckedSessionParams {
  return [...liveSessionParams(digest, now), hash('sha256', presentedCsrfToken, 'buffer')];
}

/**
 * What a statement that checked the session and the CSRF token found ({@link SESSION_CHECK}): null,
 * no live session; false, a live session and another token; true, both.
 */
export type SessionCheck = boolean | null;

/** The column of {@link inLiveSessionWithCsrf}'s select that says what it found, as `session_check`. */
export const SESSION_CHECK = '(select csrf_ok from checked) as session_check';

/**
 * A state-changing statement that reads the session and checks its CSRF token itself: `checked` has
 * one row (`user_id`, `csrf_ok`) while the session whose cookie digests to $1 is live at $2; `live`
 * has that row only when the token presented (its SHA-256 digest, $4) is the session's. The last use
 * is recorded as {@link findSession} records it, whatever the token. `rest` continues the `with` list
 * (`, name as (…)`) or starts the select; its writes read `from live`, so that a request without a
 * live session or with another token writes nothing, and its select has the column {@link SESSION_CHECK}.
 *
 * The tokens are compared as digests (the "double HMAC" comparison): SQL's `=` takes longer the
 * more leading bytes agree, and what that could reveal is a prefix of a digest, from which no token
 * can be made. `tokensMatch` (csrf.ts) compares the tokens themselves in constant time elsewhere.
 */
export function inLiveSessionWithCsrf(rest: string): string {
  return `with checked as (
    select u.id as user_id, sha256(convert_to(s.csrf_token, 'UTF8')) = $4 as csrf_ok from ${liveSessionFrom('$1', '$2')}
  ),
  live as (select user_id from checked where csrf_ok),
  ${touchedSession('$1', '$2', '$3', 'checked')}
  ${rest}`;
}

/** The digest of a cookie value that could be a session id; undefined for one that cannot. */
export function sessionDigest(id: string): Buffer | undefined {
  return /^[A-Za-z0-9_-]{43}$/.test(id) ? digestSessionId(id) : undefined;
}

/**
 * One indexed query, prepared once per connection: the live session and its user, or undefined.
 * Every five minutes of use, a second one records that the session is still used.
 */
export async function findSession(db: Executor, clock: Clock, id: string): Promise<SessionContext | undefined> {
  const digest = sessionDigest(id);
  if (digest === undefined) return undefined;
  const now = clock();
  const row = (await liveSession.rows(db, [digest, now]))[0];
  if (!row) return undefined;
  const { sid, csrf_token, auth_time, amr, expires_at, remember, last_seen_at, ...user } = row;
  if (now.getTime() - last_seen_at.getTime() >= LAST_SEEN_RESOLUTION_SECONDS * 1000) await touchSession.rows(db, [digest, now]);
  return { user, sid, csrfToken: csrf_token, authTime: auth_time, amr, expiresAt: expires_at, remember, lastSeenAt: last_seen_at };
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_digest', '=', digestSessionId(id)).execute();
}

export interface EndedSession {
  userId: number;
  sid: string;
  /** Grants (refresh and access tokens) issued under the session, revoked with it. */
  grantsRevoked: number;
}

const endSessionStatement = statement<{ user_id: number; sid: string }>('end_session', `
  delete from sessions where id_digest = $1 returning user_id, sid`);

const endSessionsOfUserStatement = statement<{ sid: string }>('end_sessions_of_user', `
  delete from sessions where user_id = $1 and ($2::text is null or sid = $2) and ($3::text is null or sid <> $3) returning sid`);

const revokeSessionGrantsStatement = statement<{ revoked: number }>('revoke_session_grants', `
  with revoked as (
    update oauth_grants set revoked_at = $2 where sid = any($1::text[]) and revoked_at is null returning id
  )
  select count(*)::integer as revoked from revoked`);

/**
 * An explicit logout (docs/oauth.md, "Signing a member out"): deletes the
 * session and revokes the grants of the apps it signed into, whose `sid` is
 * this session's; the codes issued under it and not yet exchanged die with
 * the row (codes.repository.ts `redeemCode` requires it). Undefined when
 * there was no such session. A session that merely expires, or is replaced by
 * another member's login, keeps its grants.
 */
export async function endSession(db: Executor, id: string, now: Date): Promise<EndedSession | undefined> {
  return inTransaction(db, async (trx) => {
    const [ended] = await endSessionStatement.rows(trx, [digestSessionId(id)]);
    if (!ended) return undefined;
    return { userId: ended.user_id, sid: ended.sid, grantsRevoked: await revokeSessionGrants(trx, [ended.sid], now) };
  });
}

export interface EndedSessions {
  sessionsEnded: number;
  grantsRevoked: number;
}

/** Which of a user's sessions end: one (`only`, by `sid`), all but one (`except`), or all. */
export interface SessionScope {
  readonly only?: string;
  readonly except?: string;
}

/**
 * Ends sessions of a user as a logout ends one (an operator's `sessions
 * revoke`, a password change, the member at /settings/security): the
 * sessions, their codes not yet exchanged and the grants issued under them.
 */
export async function endSessionsOfUser(db: Executor, userId: number, now: Date, scope: SessionScope = {}): Promise<EndedSessions> {
  return inTransaction(db, async (trx) => {
    const sids = (await endSessionsOfUserStatement.rows(trx, [userId, scope.only ?? null, scope.except ?? null])).map((row) => row.sid);
    return { sessionsEnded: sids.length, grantsRevoked: sids.length === 0 ? 0 : await revokeSessionGrants(trx, sids, now) };
  });
}

/**
 * Ends sessions of a user as {@link endSessionsOfUser} does, then revokes the
 * rest of their grants but those issued under the session that stays
 * (`except`): the grants of sessions that ended before (expired, replaced in
 * their browser), whose refresh tokens would otherwise outlive a password
 * set anew (RFC 9700 §4.14.2) or an operator's `sessions revoke`.
 */
export async function endSessionsAndGrantsOfUser(db: Executor, userId: number, now: Date, scope: { readonly except?: string } = {}): Promise<EndedSessions> {
  return inTransaction(db, async (trx) => {
    // Sessions first: their codes die with them, and the grant of an exchange that held a session's row is committed before the rest are revoked.
    const ended = await endSessionsOfUser(trx, userId, now, scope);
    let rest = trx.updateTable('oauth_grants').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null);
    if (scope.except !== undefined) rest = rest.where((eb) => eb.or([eb('sid', 'is', null), eb('sid', '<>', scope.except!)]));
    const result = await rest.executeTakeFirst();
    return { sessionsEnded: ended.sessionsEnded, grantsRevoked: ended.grantsRevoked + Number(result.numUpdatedRows) };
  });
}

/**
 * The second statement of every end of a session, in its transaction after
 * the `sessions` rows were deleted. It must be a later statement: under READ
 * COMMITTED each statement sees what was committed when it began, and an
 * exchange holding a session's row (codes.repository.ts `redeemCode`) commits
 * its grant only while the delete waits for that row — after the delete's
 * statement began, before this one begins.
 */
async function revokeSessionGrants(trx: Executor, sids: readonly string[], now: Date): Promise<number> {
  const [row] = await revokeSessionGrantsStatement.rows(trx, [sids, now]);
  return row!.revoked;
}

export async function purgeExpiredSessions(db: Executor, clock: Clock): Promise<number> {
  return deleteInBatches(db, 'sessions', sql<boolean>`expires_at <= ${clock()}`);
}
