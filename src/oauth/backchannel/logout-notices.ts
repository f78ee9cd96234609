/**
 * The sender of logout notices (Back-Channel Logout 1.0 §2.5, §2.7, SPEC
 * §5.6): every instance polls the durable queue, claims what is due, signs a
 * fresh logout token per attempt and POSTs it. A failed attempt is retried
 * with growing pauses, {@link MAX_ATTEMPTS} times in all, then abandoned;
 * each attempt records its time and error. Nothing here runs inside a
 * request: the logout that queued a notice has long been answered.
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
/** Notices claimed at once; each is sent in parallel. */
const BATCH_SIZE = 20;

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
  private current: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly options: LogoutNoticesOptions) {}

  /** Claims and sends the notices due now; resolves with how many it claimed, once every outcome is recorded. */
  runOnce(): Promise<number> {
    const run = this.sendDue().finally(() => {
      if (this.current === run) this.current = undefined;
    });
    this.current = run;
    return run;
  }

  /** Polls every `intervalMs`, at once again after a full batch. A failing run is logged and retried at the next tick. */
  start(intervalMs: number): void {
    this.stopped = false;
    const tick = async () => {
      const claimed = await this.runOnce().catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'sending logout notices failed');
        return 0;
      });
      if (!this.stopped) this.timer = setTimeout(() => void tick(), claimed >= BATCH_SIZE ? 0 : intervalMs);
    };
    this.timer = setTimeout(() => void tick(), intervalMs);
  }

  /** Stops polling and waits for the attempts under way (each ends within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private async sendDue(): Promise<number> {
    const { db, clock } = this.options;
    const now = clock();
    const notices = await claimDueNotices(db, now, new Date(now.getTime() + NOTICE_LEASE_SECONDS * 1000), BATCH_SIZE);
    // Every attempt ends before the run does (stop() waits for the run); the first failure is reported after.
    const failed = (await Promise.allSettled(notices.map((notice) => this.send(notice)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return notices.length;
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
      token = await signLogoutToken(await keys.signer(), issuer, Math.floor(clock().getTime() / 1000), claims);
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
