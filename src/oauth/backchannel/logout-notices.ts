/**
 * The sender of logout notices (Back-Channel Logout 1.0 §2.5, §2.7, SPEC
 * §5.6): every instance polls the durable queue, claims what is due, signs a
 * fresh logout token per attempt and POSTs it. A failed attempt is retried
 * with growing pauses, {@link MAX_ATTEMPTS} times in all, then abandoned;
 * each attempt records its time and error. Nothing here runs inside a
 * request: the logout that queued a notice has long been answered. Clients
 * share the sender fairly (docs/oauth.md "Each client gets its share"): a
 * client's hanging or slow receiver delays only that client's notices.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { signLogoutToken } from '../tokens/logout-token.ts';
import { ClientShares, NOTICES_PER_CLIENT } from './client-shares.ts';
import { deliverLogoutToken, DELIVERY_TIMEOUT_MS, type DeliveryResult } from './logout-delivery.ts';
import { claimDueNotices, recordNoticeOutcome, type LogoutNotice, type NoticeOutcome } from './logout-notices.repository.ts';
import type { NoticeTargetPolicy } from './notice-target.ts';

/** Pause after the 1st, 2nd, … failed attempt; after the last one the notice is abandoned. */
export const RETRY_DELAYS_SECONDS = [10, 60, 300, 1800] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** A claimed notice is out of other instances' reach this long: far longer than an attempt may take. */
export const NOTICE_LEASE_SECONDS = 60;

export interface LogoutNoticesOptions {
  readonly db: DB;
  readonly clock: Clock;
  readonly issuer: string;
  readonly keys: Pick<KeyStore, 'signer'>;
  readonly target: NoticeTargetPolicy;
  readonly log: EventLog;
  readonly timeoutMs?: number;
}

export interface NoticeCounts { sent: number; retried: number; abandoned: number }

/**
 * Each client's notices are sent in batches of its share (client-shares.ts);
 * while a batch is under way, that client's other notices are not claimed
 * here, and the other clients' notices are: a receiver that hangs holds up
 * only its own client's notices, for one delivery timeout per batch.
 */
export class LogoutNotices {
  /** Outcomes of this instance's attempts since it started (GET /metrics). */
  readonly counts: NoticeCounts = { sent: 0, retried: 0, abandoned: 0 };
  private readonly shares = new ClientShares();
  /** Polls, claims and batches under way: stop() waits for them all. */
  private readonly work = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | undefined;
  private intervalMs: number | undefined;
  private polling = false;
  private pollAgain = false;

  constructor(private readonly options: LogoutNoticesOptions) {}

  /** Claims and sends the notices due now; resolves with how many it claimed, once every outcome is recorded. */
  runOnce(): Promise<number> {
    return this.track(this.sendDue());
  }

  private async sendDue(): Promise<number> {
    const { claimed, batches } = await this.claimAndSend();
    // Every attempt ends before the run does; the first failure is reported after.
    const failed = (await Promise.allSettled(batches)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return claimed;
  }

  /**
   * Polls every `intervalMs` without waiting for the attempts it starts, and
   * at once when a full batch or claim has finished (more may be due). A
   * failing poll or batch is logged; the next poll tries again.
   */
  start(intervalMs: number): void {
    this.intervalMs = intervalMs;
    this.schedule(intervalMs);
  }

  /** Stops polling and waits for the attempts under way (each ends within its timeout). */
  async stop(): Promise<void> {
    this.intervalMs = undefined;
    clearTimeout(this.timer);
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private schedule(delayMs: number): void {
    if (this.intervalMs === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.track(this.poll()), delayMs);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const { batches } = await this.claimAndSend();
      for (const batch of batches) batch.catch((error: unknown) => this.warn(error));
    } catch (error) {
      this.warn(error);
    }
    this.polling = false;
    this.schedule(this.pollAgain ? 0 : this.intervalMs ?? 0);
    this.pollAgain = false;
  }

  /** A full batch or claim finished: poll at once (after the poll under way, if one is). */
  private pollSoon(): void {
    if (this.polling) this.pollAgain = true;
    else this.schedule(0);
  }

  private warn(error: unknown): void {
    this.options.log.warn({ err: error }, 'sending logout notices failed');
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.work.add(promise);
    void promise.finally(() => this.work.delete(promise)).catch(() => undefined);
    return promise;
  }

  private async claimAndSend(): Promise<{ claimed: number; batches: Promise<void>[] }> {
    const capacity = this.shares.free;
    if (capacity <= 0) return { claimed: 0, batches: [] };
    const { db, clock } = this.options;
    const now = clock();
    const notices = await this.track(claimDueNotices(db, now, new Date(now.getTime() + NOTICE_LEASE_SECONDS * 1000), {
      total: capacity, perClient: NOTICES_PER_CLIENT, skipClients: this.shares.busyClients(), lastClients: this.shares.failedLately(now),
    }));
    const byClient = new Map<string, LogoutNotice[]>();
    for (const notice of notices) byClient.set(notice.clientId, [...byClient.get(notice.clientId) ?? [], notice]);
    const claimWasFull = notices.length >= capacity;
    return { claimed: notices.length, batches: [...byClient].map(([clientId, batch]) => this.sendBatch(clientId, batch, claimWasFull)) };
  }

  /** Sends one client's notices; that client is not claimed again here until all of them are recorded. */
  private sendBatch(clientId: string, notices: readonly LogoutNotice[], claimWasFull: boolean): Promise<void> {
    this.shares.begin(clientId, notices.length);
    return this.track(Promise.allSettled(notices.map((notice) => this.send(notice))).then((results) => {
      const anyFailed = results.some((r) => r.status === 'rejected' || !r.value);
      this.shares.end(clientId, notices.length, anyFailed, this.options.clock());
      if (claimWasFull || notices.length >= NOTICES_PER_CLIENT) this.pollSoon();
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }));
  }

  /** Whether the notice was delivered. */
  private async send(notice: LogoutNotice): Promise<boolean> {
    const result = notice.attempts > MAX_ATTEMPTS
      ? { delivered: false as const, error: 'too many attempts', permanent: true }
      : await this.attempt(notice);
    const outcome = outcomeOf(notice, result, this.options.clock());
    if (await recordNoticeOutcome(this.options.db, notice, outcome, this.options.clock())) this.report(notice, outcome);
    return result.delivered;
  }

  private async attempt(notice: LogoutNotice): Promise<DeliveryResult> {
    const { clock, issuer, keys, target, timeoutMs = DELIVERY_TIMEOUT_MS } = this.options;
    let token: string;
    try {
      const claims = { clientId: notice.clientId, sub: notice.sub, sid: notice.sid };
      token = await signLogoutToken(await keys.signer(notice.signingAlg), issuer, Math.floor(clock().getTime() / 1000), claims);
    } catch {
      return { delivered: false, error: 'no signing key available', permanent: false };
    }
    return deliverLogoutToken(notice.backchannelLogoutUri, token, target, timeoutMs);
  }

  private report(notice: LogoutNotice, outcome: NoticeOutcome): void {
    const { log } = this.options;
    const ids = { clientId: notice.clientId, userId: Number(notice.sub), noticeId: notice.id, attempts: notice.attempts };
    if (outcome.state === 'sent') {
      this.counts.sent += 1;
      logSecurityEvent(log, { event: 'oauth.backchannel_logout.sent', ...ids });
    } else if (outcome.state === 'abandoned') {
      this.counts.abandoned += 1;
      logSecurityEvent(log, { event: 'oauth.backchannel_logout.abandoned', ...ids, error: outcome.error });
    } else {
      this.counts.retried += 1;
      log.info({ ...ids, error: outcome.error, retryAt: outcome.retryAt }, 'logout notice not delivered; will retry');
    }
  }
}

/** Sent; or retried after the pause for this attempt; or abandoned after the last attempt or a refusal. */
export function outcomeOf(notice: Pick<LogoutNotice, 'attempts'>, result: DeliveryResult, now: Date): NoticeOutcome {
  if (result.delivered) return { state: 'sent' };
  const pause = RETRY_DELAYS_SECONDS[notice.attempts - 1];
  if (result.permanent || pause === undefined) return { state: 'abandoned', error: result.error };
  return { state: 'retry', error: result.error, retryAt: new Date(now.getTime() + pause * 1000) };
}
