/**
 * SQL of device authorizations (RFC 8628; migration 062). Every change of a
 * row's state is one conditional statement, so that of two concurrent uses
 * exactly one succeeds: the confirmation spends the user code, the decision
 * answers a pending row once, the redemption turns an approved row into a
 * grant once.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';
import { clientFirst, scopesStillAllowed, stillGrantable } from '../clients/clients.repository.ts';
import type { DeviceCodeStatus } from '../oauth.tables.ts';

export interface NewDeviceCode {
  deviceCodeDigest: Buffer;
  userCodeDigest: Buffer;
  clientRowId: number;
  /** The client's version its checks were made on: nothing is stored when it changed since, or it is gone. */
  clientVersion: number;
  scopes: readonly string[];
  expiresAt: Date;
}

const insertStatement = statement<{ client_current: boolean; stored: number }>('insert_device_code', `
  with ${clientFirst('$3')},
  stored as (
    insert into oauth_device_codes (device_code_digest, user_code_digest, client_id, scopes, expires_at)
    select $1, $2, $3, $4::text[], $5 where (select version from client) = $6
    on conflict do nothing
    returning 1
  )
  select coalesce((select version from client), 0) = $6 as client_current, (select count(*)::integer from stored) as stored`);

/**
 * `taken` when a code's digest is taken already (a user code drawn twice): nothing stored, the caller draws
 * again. `stale` when the client changed or was deleted since it was read: its row is locked first, so a
 * deletion at the same moment either waits for the code (and deletes it) or is seen, instead of failing the
 * code's foreign key.
 */
export async function insertDeviceCode(db: Executor, code: NewDeviceCode): Promise<'stored' | 'taken' | 'stale'> {
  const [row] = await insertStatement.rows(db, [
    code.deviceCodeDigest, code.userCodeDigest, code.clientRowId, [...code.scopes], code.expiresAt, code.clientVersion,
  ]);
  if (!row!.client_current) return 'stale';
  return row!.stored === 1 ? 'stored' : 'taken';
}

/** Who asks, as the confirmation page names it. */
export interface PendingDevice {
  /** The client's `client_id`. */
  clientId: string;
  clientName: string;
}

/** The client behind a live user code not yet confirmed; nothing is changed. */
export async function findPendingUserCode(db: Executor, userCodeDigest: Buffer, now: Date): Promise<PendingDevice | undefined> {
  return db.selectFrom('oauth_device_codes as d').innerJoin('oauth_clients as c', 'c.id', 'd.client_id')
    .select(['c.client_id as clientId', 'c.name as clientName'])
    .where('d.user_code_digest', '=', userCodeDigest).where('d.status', '=', 'pending')
    .where('d.confirmed_at', 'is', null).where('d.expires_at', '>', now)
    .executeTakeFirst();
}

/** Spends a live user code (single use) and binds the continuation to its row; undefined when none matched. */
export async function confirmUserCode(db: Executor, userCodeDigest: Buffer, continuationDigest: Buffer, now: Date): Promise<PendingDevice | undefined> {
  const row = await db.updateTable('oauth_device_codes as d').from('oauth_clients as c')
    .set({ confirmed_at: now, continuation_digest: continuationDigest })
    .whereRef('c.id', '=', 'd.client_id')
    .where('d.user_code_digest', '=', userCodeDigest).where('d.status', '=', 'pending')
    .where('d.confirmed_at', 'is', null).where('d.expires_at', '>', now)
    .returning(['c.client_id as clientId', 'c.name as clientName'])
    .executeTakeFirst();
  return row;
}

export interface ConfirmedDevice {
  /** The client's `client_id`. */
  clientId: string;
  scopes: string[];
}

/** The confirmed, still undecided and live row a continuation names. */
export async function findConfirmedDevice(db: Executor, continuationDigest: Buffer, now: Date): Promise<ConfirmedDevice | undefined> {
  return db.selectFrom('oauth_device_codes as d').innerJoin('oauth_clients as c', 'c.id', 'd.client_id')
    .select(['c.client_id as clientId', 'd.scopes'])
    .where('d.continuation_digest', '=', continuationDigest).where('d.status', '=', 'pending').where('d.expires_at', '>', now)
    .executeTakeFirst();
}

export interface DeviceDecision {
  continuationDigest: Buffer;
  approved: boolean;
  userId: number;
  authTime: Date;
  amr: readonly string[];
  sid: string;
  now: Date;
}

/** The member's answer, once: true when the row was pending (and live) and is now approved or denied. */
export async function decideDevice(db: Executor, decision: DeviceDecision): Promise<boolean> {
  const result = await db.updateTable('oauth_device_codes').set({
    status: decision.approved ? 'approved' : 'denied', decided_at: decision.now,
    user_id: decision.userId, auth_time: decision.authTime, amr: [...decision.amr], sid: decision.sid,
  }).where('continuation_digest', '=', decision.continuationDigest).where('status', '=', 'pending')
    .where('expires_at', '>', decision.now).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export interface PolledDeviceCode {
  status: DeviceCodeStatus;
  expires_at: Date;
}

const findPolledStatement = statement<PolledDeviceCode>('find_device_code', `
  select status, expires_at from oauth_device_codes where device_code_digest = $1 and client_id = $2`);

/** A poll's read: the state of this client's device code (a pending one's poll is then noted, `notePendingPoll`). */
export async function findPolledDeviceCode(db: Executor, digest: Buffer, clientRowId: number): Promise<PolledDeviceCode | undefined> {
  return (await findPolledStatement.rows(db, [digest, clientRowId]))[0];
}

/** How a device's polls are paced (RFC 8628 §3.5): the first interval, what each `slow_down` adds, the clocks' tolerance. */
export interface PollPacing {
  intervalSeconds: number;
  slowDownSeconds: number;
  toleranceSeconds: number;
}

/**
 * A poll of a pending device code, noted on its row: true when it came sooner than the interval
 * (less the tolerance) after the latest poll, and the interval has then grown. Each poll's time is
 * its own instance's clock: the latest time is kept (`greatest`), so a poll that waited for the
 * row's lock never moves it back, but never more than the tolerance past this poll's own time, so
 * that one instance whose clock runs far ahead does not hold every later poll back. The row is
 * locked for the reading, so two polls at once on two instances are paced in turn. False when the
 * code is no longer pending.
 */
const notePollStatement = statement<{ too_soon: boolean }>('note_device_poll', `
  with d as (
    select device_code_digest, last_polled_at, coalesce(poll_interval_seconds, $3::integer) as seconds
    from oauth_device_codes where device_code_digest = $1 and status = 'pending'
    for update
  ),
  paced as (
    select device_code_digest, seconds, last_polled_at,
      last_polled_at is not null and $2::timestamptz < last_polled_at + make_interval(secs => seconds - $5::double precision) as too_soon
    from d
  )
  update oauth_device_codes o
  set last_polled_at = least(greatest(paced.last_polled_at, $2::timestamptz), $2::timestamptz + make_interval(secs => $5::double precision)),
    poll_interval_seconds = paced.seconds + case when paced.too_soon then $4::integer else 0 end
  from paced where o.device_code_digest = paced.device_code_digest
  returning paced.too_soon`);

export async function notePendingPoll(db: Executor, digest: Buffer, now: Date, pacing: PollPacing): Promise<boolean> {
  const values = [digest, now, pacing.intervalSeconds, pacing.slowDownSeconds, pacing.toleranceSeconds];
  return (await notePollStatement.rows(db, values))[0]?.too_soon ?? false;
}

export interface DeviceRedemption {
  digest: Buffer;
  clientRowId: number;
  /** The version of the client as read (client-cache.ts): redeem nothing if it has changed since. */
  clientVersion: number;
  now: Date;
  grantExpiresAt: Date;
  /** Set when the client holds the refresh_token grant. */
  refreshExpiresAt: Date | null;
  /** The key a public client's refresh tokens are bound to (RFC 9449 §5), or null. */
  refreshDpopJkt: string | null;
  /** The client's scopes and required regions now, as for a code (codes.repository.ts `redeemCode`). */
  clientScopes: readonly string[];
  requiredRegions: readonly number[];
}

export interface RedeemedDeviceCode {
  grant_id: number;
  user_id: number;
  scopes: string[];
  auth_time: Date;
  amr: string[];
  sid: string | null;
  refresh_id: number | null;
}

/**
 * As an authorization code's redemption (codes.repository.ts `redeemCode`):
 * the client's row is locked first, then the approving session's row, before the device code is marked used,
 * so a logout ending that session either waits and then revokes the new grant,
 * or came first and nothing is redeemed. The session is recorded as signed
 * into the client (whom Back-Channel Logout tells when it ends).
 */
const redeemStatement = statement<RedeemedDeviceCode & { client_current: boolean }>('redeem_device_code', `
  with ${clientFirst('$2')},
  cv as (select coalesce((select version from client), 0) = $6 as current),
  gid as (select nextval(pg_get_serial_sequence('oauth_grants', 'id'))::integer as id),
  live as (
    select s.sid from sessions s
    where s.sid = (select d.sid from oauth_device_codes d where d.device_code_digest = $1) and s.expires_at > $3
      and exists (select 1 from client)
    for key share
  ),
  used as (
    update oauth_device_codes set status = 'used', grant_id = (select id from gid)
    where device_code_digest = $1 and client_id = $2 and status = 'approved' and expires_at > $3
      and (select current from cv)
      and sid = (select sid from live)
      and ${stillGrantable('oauth_device_codes', '$8', '$9')}
    returning user_id, ${scopesStillAllowed('scopes', '$8')} as scopes, auth_time, amr, sid, client_id
  ),
  g as (
    insert into oauth_grants (id, client_id, user_id, scopes, auth_time, expires_at, sid, amr, dpop_jkt)
    select (select id from gid), client_id, user_id, scopes, auth_time, $4, sid, amr, $7::text from used
    returning id, scopes
  ),
  rt as (
    insert into oauth_refresh_tokens (grant_id, scopes, expires_at)
    select id, scopes, $5::timestamptz from g where $5::timestamptz is not null
    returning id
  ),
  session_client as (
    insert into oauth_session_clients (sid, client_id, user_id)
    select sid, client_id, user_id from used
    on conflict (sid, client_id) do nothing
  )
  select cv.current as client_current, g.id as grant_id, used.user_id, used.scopes, used.auth_time, used.amr, used.sid,
    (select id from rt) as refresh_id
  from cv left join g on true left join used on true`);

/** `code` undefined when no approved, live row of this client with a live approving session matched. */
export async function redeemDeviceCode(db: Executor, r: DeviceRedemption): Promise<{ clientCurrent: boolean; code: RedeemedDeviceCode | undefined }> {
  const [row] = await redeemStatement.rows(db, [
    r.digest, r.clientRowId, r.now, r.grantExpiresAt, r.refreshExpiresAt, r.clientVersion, r.refreshDpopJkt, [...r.clientScopes], [...r.requiredRegions],
  ]);
  const { client_current, ...code } = row!;
  return { clientCurrent: client_current, code: code.grant_id === null ? undefined : code };
}

/** Rows are kept a day past expiry, like codes: a late poll is told `expired_token`, not "unknown". */
export function purgeExpiredDeviceCodes(db: Executor, now: Date): Promise<number> {
  return deleteInBatches(db, 'oauth_device_codes', sql<boolean>`expires_at <= ${new Date(now.getTime() - 24 * 3600 * 1000)}`);
}
