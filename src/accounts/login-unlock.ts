/**
 * Unlocking a login by email (docs/security.md, "Unlocking a login by
 * email"). The account-wide failure counter (login-throttle.ts) can be kept
 * full by anybody guessing from many addresses; a browser with the account's
 * device cookie passes it. A member whose browser has no such cookie proves
 * control of the account's address instead (OWASP Authentication Cheat Sheet,
 * "Account Lockout"; Keycloak's brute-force detection lets a member out the
 * same way through a link by email): the link sets the device cookie in the
 * browser that follows it. It unlocks, it does not log in: the password is
 * still needed, now counted on the device's own counter.
 *
 * Asking is answered the same way whether the address has an account or not:
 * the request only queues a row; the mail's composer (login-unlock.mail.ts)
 * finds the account when the mail is sent, and sends nothing when there is
 * none. At most {@link UNLOCK_MAILS_PER_HOUR} mails per address per hour, on
 * the shared failed-login counters.
 */
import { sql } from 'kysely';
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { enqueueMail } from '../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import type { AttemptCounters, DelayPolicy } from './login-attempt-counters.ts';
import { accountOf } from './login-throttle.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

export const UNLOCK_MAIL_KIND = 'login-unlock';
export const UNLOCK_MAILS_PER_HOUR = 3;
/** Three mails at once, then one an hour: never more than three in any hour. */
export const UNLOCK_MAIL_POLICY: DelayPolicy = { free: UNLOCK_MAILS_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
/** How long a link works (OWASP Forgot Password Cheat Sheet: short-lived, single use). */
export const UNLOCK_LINK_MINUTES = 30;
const MAX_EMAIL_LENGTH = 254;

export interface UnlockMailRequest {
  readonly email: string;
  readonly locale: MailLocale;
  /** The page the login is for (a pending authorization request, say), already checked by safeReturnTo. */
  readonly returnTo: string;
  readonly ip: string;
  readonly log: EventLog;
}

/** Queues an unlock mail for this address unless it asked too often. Tells the caller nothing either way. */
export async function requestUnlockMail(db: Executor, clock: Clock, attempts: AttemptCounters, request: UnlockMailRequest): Promise<void> {
  const account = accountOf(request.email);
  if (account === '' || account.length > MAX_EMAIL_LENGTH || !account.includes('@')) return;
  const now = clock();
  const wait = await attempts.reserve(`unlock-mail:${account}`, UNLOCK_MAIL_POLICY, now);
  if (wait > 0) {
    logSecurityEvent(request.log, { event: 'account.login.unlock_limited', retryAfterSeconds: wait, ip: request.ip });
    return;
  }
  const mailId = await enqueueMail(db, { kind: UNLOCK_MAIL_KIND, recipient: account, locale: request.locale, params: { returnTo: request.returnTo } }, now);
  logSecurityEvent(request.log, { event: 'mail.queued', mailId, kind: UNLOCK_MAIL_KIND, ip: request.ip });
}

export function digestUnlockToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export interface NewUnlockToken {
  readonly token: string;
  readonly account: string;
  readonly userId: number;
  readonly returnTo: string;
}

export async function storeUnlockToken(db: Executor, token: NewUnlockToken, now: Date): Promise<void> {
  await db.insertInto('login_unlock_tokens').values({
    digest: digestUnlockToken(token.token), account: token.account, user_id: token.userId, return_to: token.returnTo,
    expires_at: new Date(now.getTime() + UNLOCK_LINK_MINUTES * 60 * 1000),
  }).execute();
}

export interface RedeemedUnlock {
  readonly account: string;
  readonly userId: number;
  readonly returnTo: string;
}

/** Consumes a live token in one statement: a second use, or one after expiry, finds nothing. */
export async function redeemUnlockToken(db: Executor, token: string, now: Date): Promise<RedeemedUnlock | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await db.deleteFrom('login_unlock_tokens')
    .where('digest', '=', digestUnlockToken(token)).where('expires_at', '>', now)
    .returning(['account', 'user_id', 'return_to'])
    .executeTakeFirst();
  return row && { account: row.account, userId: row.user_id, returnTo: row.return_to };
}

export async function purgeExpiredUnlockTokens(db: Executor, clock: Clock): Promise<void> {
  await deleteInBatches(db, 'login_unlock_tokens', sql<boolean>`expires_at <= ${clock()}`);
}
