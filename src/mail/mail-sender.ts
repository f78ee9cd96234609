/**
 * The sender of queued mail: every instance polls the durable queue
 * (mail-outbox.repository.ts), claims what is due, has the row's composer
 * write the message and hands it to the transport. A failed attempt is
 * retried with growing pauses, {@link MAX_MAIL_ATTEMPTS} times in all, then
 * abandoned; a permanent refusal (5xx) is abandoned at once. Nothing here
 * runs inside a request: the request that queued a mail has long been answered.
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import type { MailContent } from './mail-message.ts';
import { renderMail } from './mail-message.ts';
import { claimDueMails, recordMailOutcome, type MailOutcome, type QueuedMail } from './mail-outbox.repository.ts';
import { MAX_ATTEMPT_MS, MailDeliveryError, type MailTransport } from './mail-transport.ts';

/** Pause after the 1st, 2nd, … failed attempt; after the last one the mail is abandoned. */
export const MAIL_RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600] as const;
export const MAX_MAIL_ATTEMPTS = MAIL_RETRY_DELAYS_SECONDS.length + 1;
/** A claimed mail is out of other instances' reach this long: longer than an attempt may take. */
export const MAIL_LEASE_SECONDS = Math.ceil((2 * MAX_ATTEMPT_MS) / 1000);
const BATCH_SIZE = 10;

/** What a composer makes of a queued row: the message, or undefined when there is nothing to send. */
export interface ComposedMail {
  readonly to: string;
  readonly content: MailContent;
}

/**
 * Writes the message of one kind of mail when it is sent (not when it is
 * queued): a one-time link is made here, so no live secret rests in the queue.
 */
export type MailComposer = (db: DB, mail: QueuedMail, now: Date) => Promise<ComposedMail | undefined>;

export interface MailSenderOptions {
  readonly db: DB;
  readonly clock: Clock;
  readonly transport: MailTransport;
  readonly composers: Readonly<Record<string, MailComposer>>;
  /** The right part of every Message-ID: the host of PUBLIC_URL. */
  readonly messageIdHost: string;
  readonly log: EventLog;
}

export interface MailCounts { sent: number; skipped: number; retried: number; abandoned: number }

export class MailSender {
  readonly counts: MailCounts = { sent: 0, skipped: 0, retried: 0, abandoned: 0 };
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<number> | undefined;
  private stopped = true;

  constructor(private readonly options: MailSenderOptions) {}

  /** Claims and sends the mail due now; resolves with how many it claimed, once every outcome is recorded. */
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
        this.options.log.warn({ err: error }, 'sending mail failed');
        return 0;
      });
      if (!this.stopped) this.timer = setTimeout(() => void tick(), claimed >= BATCH_SIZE ? 0 : intervalMs);
    };
    this.timer = setTimeout(() => void tick(), intervalMs);
  }

  /** Stops polling, waits for the attempts under way, and closes the transport. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
    this.options.transport.close();
  }

  private async sendDue(): Promise<number> {
    const { db, clock } = this.options;
    const now = clock();
    const mails = await claimDueMails(db, now, new Date(now.getTime() + MAIL_LEASE_SECONDS * 1000), BATCH_SIZE);
    const failed = (await Promise.allSettled(mails.map((mail) => this.send(mail)))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return mails.length;
  }

  private async send(mail: QueuedMail): Promise<void> {
    const outcome = mail.attempts > MAX_MAIL_ATTEMPTS
      ? { state: 'abandoned' as const, error: 'too many attempts' }
      : await this.attempt(mail);
    if (await recordMailOutcome(this.options.db, mail, outcome, this.options.clock())) this.report(mail, outcome);
  }

  private async attempt(mail: QueuedMail): Promise<MailOutcome> {
    const { db, clock, composers, transport, messageIdHost } = this.options;
    const compose = composers[mail.kind];
    if (!compose) return { state: 'abandoned', error: `no composer for ${mail.kind}` };
    try {
      const composed = await compose(db, mail, clock());
      if (!composed) return { state: 'skipped' };
      const rendered = renderMail(mail.locale, composed.content);
      const links = composed.content.action ? [composed.content.action.href] : [];
      await transport.send({ ...rendered, to: composed.to, locale: mail.locale, messageId: `${mail.messageKey}@${messageIdHost}`, date: clock(), links });
      return { state: 'sent' };
    } catch (error) {
      const failure = error instanceof MailDeliveryError ? error : new MailDeliveryError(errorText(error), false);
      return outcomeOf(mail, failure, clock());
    }
  }

  private report(mail: QueuedMail, outcome: MailOutcome): void {
    const { log } = this.options;
    const ids = { mailId: mail.id, kind: mail.kind, attempts: mail.attempts };
    if (outcome.state === 'sent') {
      this.counts.sent += 1;
      logSecurityEvent(log, { event: 'mail.sent', ...ids });
    } else if (outcome.state === 'skipped') {
      this.counts.skipped += 1;
      logSecurityEvent(log, { event: 'mail.skipped', ...ids });
    } else if (outcome.state === 'abandoned') {
      this.counts.abandoned += 1;
      logSecurityEvent(log, { event: 'mail.failed', ...ids, error: outcome.error });
    } else {
      this.counts.retried += 1;
      log.info({ ...ids, error: outcome.error, retryAt: outcome.retryAt }, 'mail not delivered; will retry');
    }
  }
}

/** Retried after the pause for this attempt; abandoned after the last attempt or a permanent refusal. */
export function outcomeOf(mail: Pick<QueuedMail, 'attempts'>, failure: MailDeliveryError, now: Date): MailOutcome {
  const pause = MAIL_RETRY_DELAYS_SECONDS[mail.attempts - 1];
  if (failure.permanent || pause === undefined) return { state: 'abandoned', error: failure.message };
  return { state: 'retry', error: failure.message, retryAt: new Date(now.getTime() + pause * 1000) };
}

function errorText(error: unknown): string {
  return `not composed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
}
