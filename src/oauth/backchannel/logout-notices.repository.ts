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
  /** Notices claimed at most. */
  readonly limit: number;
  /** Notices of one client claimed at most (its oldest due ones). */
  readonly perClient: number;
  /** Clients whose notices are not claimed now (this instance is still sending to them). */
  readonly busyClients: readonly string[];
}

/**
 * Up to `limit` due notices, at most `perClient` of each client, none of a
 * busy client, each out of every other claim's reach until `leaseEnds`. The
 * oldest notice of every client comes before the second of any: a client
 * with a thousand notices due and a receiver that hangs gets its share, not
 * the batch. (The ranking reads every due row: cheap while the queue holds
 * what a few minutes of logouts leave, which is what it holds.)
 */
export async function claimDueNotices(db: Executor, now: Date, leaseEnds: Date, limits: ClaimLimits): Promise<LogoutNotice[]> {
  const { rows } = await sql<{ id: number; client_id: string; backchannel_logout_uri: string; sub: string; sid: string | null; attempts: number; alg: string | null }>`
    with due as (
      select id, row_number() over (partition by client_id order by next_attempt_at, id) as rank
      from oauth_logout_notices
      where state = 'pending' and next_attempt_at <= ${now} and not (client_id = any(${[...limits.busyClients]}::text[]))
    ), picked as (
      select n.id from oauth_logout_notices n join due on due.id = n.id
      where due.rank <= ${limits.perClient} and n.state = 'pending' and n.next_attempt_at <= ${now}
      order by due.rank, n.next_attempt_at, n.id
      limit ${limits.limit}
      for update of n skip locked
    )
    update oauth_logout_notices set attempts = attempts + 1, next_attempt_at = ${leaseEnds}, last_attempt_at = ${now}
    where id in (select id from picked)
    returning id, client_id, backchannel_logout_uri, sub, sid, attempts,
      (select c.id_token_signed_response_alg from oauth_clients c where c.client_id = oauth_logout_notices.client_id) as alg`.execute(db);
  return rows.sort((a, b) => a.id - b.id).map((r) => ({
    id: r.id, clientId: r.client_id, backchannelLogoutUri: r.backchannel_logout_uri, sub: r.sub, sid: r.sid, attempts: r.attempts,
    signingAlg: isSigningAlg(r.alg) ? r.alg : DEFAULT_SIGNING_ALG,
  }));
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
  const result = await db.deleteFrom('oauth_logout_notices')
    .where('state', '<>', 'pending').where('finished_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
