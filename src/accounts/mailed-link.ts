/**
 * What the flows that mail a one-time link to an account's address share
 * (login-unlock.ts, password-reset.ts; OWASP Forgot Password Cheat Sheet).
 *
 * Asking: the answer is the same whether the address has an account and
 * whether it asked too often, so asking only queues a row, after the flow's
 * limits (on the shared failed-login counters); the mail's composer finds the
 * account and makes the link when the mail is sent, so no live link rests in
 * the queue. The link's token is 256 random bits in base64url (sessions.ts
 * `randomToken`), stored only as its SHA-256 digest.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { clientCounterKey } from '../http/connection-limit.ts';
import { enqueueMail } from '../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import type { AttemptCounters, DelayPolicy } from './login-attempt-counters.ts';
import { accountOf } from './login-throttle.ts';

const MAX_EMAIL_LENGTH = 254;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface LinkMailRequest {
  readonly email: string;
  readonly locale: MailLocale;
  /** The page the login is for (a pending authorization request, say), already checked by safeReturnTo. */
  readonly returnTo: string;
  readonly ip: string;
  readonly log: EventLog;
}

/** One limit on asking: a counter and its policy. */
export interface LinkRequestLimit {
  readonly key: string;
  readonly policy: DelayPolicy;
}

export interface LinkMailKind {
  readonly kind: string;
  /**
   * The limits for this address and client, checked in order; the first one
   * reached stops the request. `client`: the client address as the connection
   * limit counts it (http/connection-limit.ts), an IPv6 address by its /64.
   */
  limits(account: string, client: string): readonly LinkRequestLimit[];
  readonly limitedEvent: 'account.login.unlock_limited' | 'account.password_reset.limited';
}

/** Queues the mail for this address unless a limit is reached. Tells the caller nothing either way. */
export async function queueLinkMail(db: Executor, clock: Clock, attempts: AttemptCounters, mail: LinkMailKind, request: LinkMailRequest): Promise<void> {
  const account = accountOf(request.email);
  if (account === '' || account.length > MAX_EMAIL_LENGTH || !account.includes('@')) return;
  const now = clock();
  for (const limit of mail.limits(account, clientCounterKey(request.ip))) {
    const reservation = await attempts.reserve(limit.key, limit.policy, now);
    if (!reservation.counted) {
      logSecurityEvent(request.log, { event: mail.limitedEvent, retryAfterSeconds: reservation.wait, ip: request.ip });
      return;
    }
  }
  const mailId = await enqueueMail(db, { kind: mail.kind, recipient: account, locale: request.locale, params: { returnTo: request.returnTo } }, now);
  logSecurityEvent(request.log, { event: 'mail.queued', mailId, kind: mail.kind, ip: request.ip });
}

/** Whether a path segment can be a link's token at all (anything else is not looked up). */
export function isLinkToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export function digestLinkToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
