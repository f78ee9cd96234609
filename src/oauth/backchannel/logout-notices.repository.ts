/**
 * The logout-notice queue (migration 044). A claim is one statement that
 * locks due rows with `for update skip locked` and moves them out of reach for
 * a lease: two instances claiming at once never get the same notice, and a
 * notice whose sender died becomes due again when its lease ends. Each claim
 * raises `attempts`, which then fences the outcome: only the claim that sent
 * a notice records how it went.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { DEFAULT_SIGNING_ALG, isSigningAlg, type SigningAlg } from '../jose/algorithms.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export interface LogoutNotice {
  readonly id: number;
  readonly clientId: string;
  readonly backchannelLogoutUri: string;
  readonly sub: string;
  readonly sid: string | null;
  /** This claim's attempt, counting from 1. */
  readonly attempts: number;
  /** The client's `id_token_signed_response_alg`: its logout tokens are signed as its ID tokens (§2.4). */
  readonly signingAlg: SigningAlg;
}

export interface NewLogoutNotice {
  readonly clientId: string;
  readonly backchannelLogoutUri: string;
  readonly sub: string;
  readonly sid: string | null;
}

export async function enqueueLogoutNotices(db: Executor, notices: readonly NewLogoutNotice[], now: Date): Promise<void> {
  if (notices.length === 0) return;
  await db.insertInto('oauth_logout_notices').values(notices.map((n) => ({
    client_id: n.clientId, backchannel_logout_uri: n.backchannelLogoutUri, sub: n.sub, sid: n.sid, next_attempt_at: now,
  }))).execute();
}

export interface ClaimLimits {
  /** Notices claimed in all. */
  readonly total: number;
  /** Notices claimed of one client: a client's share of the attempts under way. */
  readonly perClient: number;
  /** Clients of which none is claimed (this instance is still sending to them). */
  readonly skipClients: readonly string[];
  /** Clients claimed after all others (their receivers failed lately). */
  readonly lastClients: readonly string[];
}

/**
 * Due notices, at most `perClient` of each client; the clients in
 * `lastClients` after the others, then those whose oldest due notice waits
 * longest first. Each claimed notice is out of every other claim's reach until
 * `leaseEnds`. One statement: each client's rows are locked `for update skip
 * locked` in a lateral subquery (a row lock cannot be combined with a window
 * function); rows locked beyond `total` are left as they were, unlocked when
 * the statement ends.
 */
export async function claimDueNotices(db: Executor, now: Date, leaseEnds: Date, limits: ClaimLimits): Promise<LogoutNotice[]> {
  const { rows } = await sql<ClaimedRow>`
    with due_clients as (
      select client_id, row_number() over (
        order by client_id = any(${[...limits.lastClients]}::text[]), min(next_attempt_at), client_id) as turn
      from oauth_logout_notices
      where state = 'pending' and next_attempt_at <= ${now} and client_id <> all(${[...limits.skipClients]}::text[])
      group by client_id order by turn limit ${limits.total}
    ), claimed as (
      select n.id from due_clients c cross join lateral (
        select id, next_attempt_at from oauth_logout_notices
        where client_id = c.client_id and state = 'pending' and next_attempt_at <= ${now}
        order by next_attempt_at, id limit ${limits.perClient}
        for update skip locked
      ) n
      order by c.turn, n.next_attempt_at, n.id limit ${limits.total}
    )
    update oauth_logout_notices set attempts = attempts + 1, next_attempt_at = ${leaseEnds}, last_attempt_at = ${now}
    where id in (select id from claimed)
    returning id, client_id, backchannel_logout_uri, sub, sid, attempts,
      (select c.id_token_signed_response_alg from oauth_clients c where c.client_id = oauth_logout_notices.client_id) as alg`.execute(db);
  return rows.sort((a, b) => a.id - b.id).map((r) => ({
    id: r.id, clientId: r.client_id, backchannelLogoutUri: r.backchannel_logout_uri, sub: r.sub, sid: r.sid, attempts: r.attempts,
    signingAlg: isSigningAlg(r.alg) ? r.alg : DEFAULT_SIGNING_ALG,
  }));
}

interface ClaimedRow {
  id: number; client_id: string; backchannel_logout_uri: string; sub: string; sid: string | null; attempts: number; alg: string | null;
}

export type NoticeOutcome =
  | { readonly state: 'sent' }
  | { readonly state: 'retry'; readonly error: string; readonly retryAt: Date }
  | { readonly state: 'abandoned'; readonly error: string };

/** Records how this claim's attempt went; false when the claim was no longer this one's (its lease had ended). */
export async function recordNoticeOutcome(db: Executor, notice: LogoutNotice, outcome: NoticeOutcome, now: Date): Promise<boolean> {
  const update = db.updateTable('oauth_logout_notices')
    .where('id', '=', notice.id).where('attempts', '=', notice.attempts).where('state', '=', 'pending');
  const result = await (outcome.state === 'retry'
    ? update.set({ next_attempt_at: outcome.retryAt, last_error: outcome.error })
    : update.set({ state: outcome.state, finished_at: now, last_error: outcome.state === 'sent' ? null : outcome.error })
  ).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** How long sent and abandoned notices are kept for operators to look at. */
export const FINISHED_NOTICE_DAYS = 7;

export async function purgeFinishedNotices(db: Executor, now: Date): Promise<number> {
  const before = new Date(now.getTime() - FINISHED_NOTICE_DAYS * 24 * 3600 * 1000);
  return deleteInBatches(db, 'oauth_logout_notices', sql<boolean>`state <> 'pending' and finished_at < ${before}`);
}
