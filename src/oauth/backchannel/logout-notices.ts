/**
 * The sender of logout notices (Back-Channel Logout 1.0 §2.5, §2.7, SPEC
 * §5.6): every instance polls the durable queue, claims what is due, signs a
 * fresh logout token per attempt and POSTs it. A failed attempt is retried
 * with growing pauses, {@link MAX_ATTEMPTS} times in all, then abandoned;
 * each attempt records its time and error. Nothing here runs inside a
 * request: the logout that queued a notice has long been answered.
 *
 * Clients are served side by side, never in line: at most
 * {@link PER_CLIENT_IN_FLIGHT} notices of one client are under way at a time
 * on an instance, and a client with attempts under way gets no new claim
 * until they end, so a receiver that hangs costs its own notices their
 * deadline and nobody else anything. Each poll claims for every other client
 * at once, without waiting for the attempts of the previous one.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { signLogoutToken } from '../tokens/logout-token.ts';
import { deliverLogoutToken, DELIVERY_TIMEOUT_MS, type DeliveryResult } from './logout-delivery.ts';
import { claimDueNotices, recordNoticeOutcome, type LogoutNotice, type NoticeOutcome } from './logout-notices.repository.ts';
import type { NoticeTargetPolicy } from './notice-target.ts';

/** Pause after the 1st, 2nd, … failed attempt; after the last one the notice is abandoned. */
export const RETRY_DELAYS_SECONDS = [10, 60, 300, 1800] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
/** A claimed notice is out of other instances' reach this long: far longer than an attempt may take. */
export const NOTICE_LEASE_SECONDS = 60;
/** Attempts under way on one instance, in all. */
export const MAX_IN_FLIGHT = 32;
/** Attempts under way on one instance for one client. */
export const PER_CLIENT_IN_FLIGHT = 2;

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

export class LogoutNotices {
  /** Outcomes of this instance's attempts since it started (GET /metrics). */
  readonly counts: NoticeCounts = { sent: 0, retried: 0, abandoned: 0 };
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Attempts under way, each recorded when it ends; per client, how many. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly inFlightOf = new Map<string, number>();
  private claiming: Promise<LogoutNotice[]> | undefined;

  constructor(private readonly options: LogoutNoticesOptions) {}

  /** Claims and sends the notices due now; resolves with how many it claimed, once every outcome of these is recorded. */
  async runOnce(): Promise<number> {
    const notices = await this.claim();
    const failed = (await Promise.allSettled(notices.map((notice) => this.launch(notice)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return notices.length;
  }

  /**
   * Polls every `intervalMs`: claims what is due for clients without attempts under way and starts
   * sending, without waiting for earlier attempts. A failing claim is logged and retried at the next tick.
   */
  start(intervalMs: number): void {
    this.stopped = false;
    const tick = async () => {
      const claimed = await this.claim().catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'claiming logout notices failed');
        return [];
      });
      for (const notice of claimed) {
        this.launch(notice).catch((error: unknown) => this.options.log.warn({ err: error, noticeId: notice.id }, 'recording a logout notice failed'));
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), intervalMs);
    };
    this.timer = setTimeout(() => void tick(), intervalMs);
  }

  /** Stops polling and waits for the attempts under way (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.claiming?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
  }

  /** One claim at a time on this instance, so that its per-client counts hold. */
  private async claim(): Promise<LogoutNotice[]> {
    while (this.claiming) await this.claiming.catch(() => undefined);
    const { db, clock } = this.options;
    const now = clock();
    const limit = MAX_IN_FLIGHT - this.inFlight.size;
    if (limit <= 0) return [];
    const busyClients = [...this.inFlightOf.keys()];
    this.claiming = claimDueNotices(db, now, new Date(now.getTime() + NOTICE_LEASE_SECONDS * 1000), { limit, perClient: PER_CLIENT_IN_FLIGHT, busyClients });
    try {
      return await this.claiming;
    } finally {
      this.claiming = undefined;
    }
  }

  /** Sends one claimed notice, counted as under way for its client until its outcome is recorded. */
  private launch(notice: LogoutNotice): Promise<void> {
    this.inFlightOf.set(notice.clientId, (this.inFlightOf.get(notice.clientId) ?? 0) + 1);
    const attempt = this.send(notice).finally(() => {
      this.inFlight.delete(attempt);
      const left = (this.inFlightOf.get(notice.clientId) ?? 1) - 1;
      if (left === 0) this.inFlightOf.delete(notice.clientId);
      else this.inFlightOf.set(notice.clientId, left);
    });
    this.inFlight.add(attempt);
    return attempt;
  }

  private async send(notice: LogoutNotice): Promise<void> {
    const result = notice.attempts > MAX_ATTEMPTS
      ? { delivered: false as const, error: 'too many attempts', permanent: true }
      : await this.attempt(notice);
    const outcome = outcomeOf(notice, result, this.options.clock());
    if (await recordNoticeOutcome(this.options.db, notice, outcome, this.options.clock())) this.report(notice, outcome);
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
