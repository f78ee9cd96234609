/**
 * Resetting a forgotten password by email (docs/security.md, "Resetting a
 * forgotten password"; OWASP Forgot Password Cheat Sheet; NIST SP 800-63B
 * §6.1.2.3). Asking is answered the same way whether the address has an
 * account or not: the request only queues a row, and the mail's composer
 * (password-reset.mail.ts) finds the account when the mail is sent. At most
 * {@link RESET_MAILS_PER_HOUR} mails per address and {@link RESET_REQUESTS_PER_IP_PER_HOUR}
 * requests per client address an hour, on the shared failed-login counters.
 *
 * A link is a 256-bit random token, stored as its SHA-256 digest, good for
 * {@link RESET_LINK_MINUTES} minutes and once; a newer link for the member
 * replaces it, and any change of the password ends it (the row keeps a
 * digest of the password hash it was issued under).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { enqueueMail } from '../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import type { AttemptCounters, DelayPolicy } from './login-attempt-counters.ts';
import { accountOf } from './login-throttle.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

export const RESET_MAIL_KIND = 'password-reset';
export const RESET_MAILS_PER_HOUR = 3;
export const RESET_REQUESTS_PER_IP_PER_HOUR = 10;
/** Three mails at once, then one an hour: never more than three in any hour. */
export const RESET_MAIL_POLICY: DelayPolicy = { free: RESET_MAILS_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
export const RESET_IP_POLICY: DelayPolicy = { free: RESET_REQUESTS_PER_IP_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
/** How long a link works (OWASP Forgot Password Cheat Sheet: short-lived, single use). */
export const RESET_LINK_MINUTES = 30;
const MAX_EMAIL_LENGTH = 254;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface ResetMailRequest {
  readonly email: string;
  readonly locale: MailLocale;
  /** The page the login is for (a pending authorization request, say), already checked by safeReturnTo. */
  readonly returnTo: string;
  readonly ip: string;
  readonly log: EventLog;
}

/** Queues a reset mail for this address unless it or the client asked too often. Tells the caller nothing either way. */
export async function requestResetMail(db: Executor, clock: Clock, attempts: AttemptCounters, request: ResetMailRequest): Promise<void> {
  logSecurityEvent(request.log, { event: 'account.password_reset.requested', ip: request.ip });
  const account = accountOf(request.email);
  if (account === '' || account.length > MAX_EMAIL_LENGTH || !account.includes('@')) return;
  const now = clock();
  const wait = await attempts.reserve(`reset-ip:${request.ip}`, RESET_IP_POLICY, now)
    || await attempts.reserve(`reset-mail:${account}`, RESET_MAIL_POLICY, now);
  if (wait > 0) {
    logSecurityEvent(request.log, { event: 'account.password_reset.limited', retryAfterSeconds: wait, ip: request.ip });
    return;
  }
  const mailId = await enqueueMail(db, { kind: RESET_MAIL_KIND, recipient: account, locale: request.locale, params: { returnTo: request.returnTo } }, now);
  logSecurityEvent(request.log, { event: 'mail.queued', mailId, kind: RESET_MAIL_KIND, ip: request.ip });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export interface NewResetToken {
  readonly token: string;
  readonly userId: number;
  readonly passwordHash: string;
  readonly returnTo: string;
}

/** Stores a new link for the member; their older links stop working ("invalidated by a newer request"). */
export async function storeResetToken(db: Executor, token: NewResetToken, now: Date): Promise<void> {
  await db.deleteFrom('password_reset_tokens').where('user_id', '=', token.userId).execute();
  await db.insertInto('password_reset_tokens').values({
    digest: sha256(token.token), user_id: token.userId, return_to: token.returnTo,
    password_hash_digest: sha256(token.passwordHash),
    expires_at: new Date(now.getTime() + RESET_LINK_MINUTES * 60 * 1000),
  }).execute();
}

export interface LiveResetToken {
  readonly userId: number;
  readonly email: string;
  readonly returnTo: string;
}

/** The live link's member, without using it up (the form's GET, and the password check before the redemption). */
export async function peekResetToken(db: Executor, token: string, now: Date): Promise<LiveResetToken | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db.selectFrom('password_reset_tokens as t').innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 'u.email', 't.return_to'])
    .where('t.digest', '=', sha256(token)).where('t.expires_at', '>', now)
    .where(sql<boolean>`sha256(convert_to(u.password_hash, 'UTF8')) = t.password_hash_digest`)
    .executeTakeFirst();
  return row && { userId: row.user_id, email: row.email, returnTo: row.return_to };
}

/** Consumes a live link in one statement: a second use, one after expiry or after a password change finds nothing. */
export async function redeemResetToken(db: Executor, token: string, now: Date): Promise<LiveResetToken | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db.deleteFrom('password_reset_tokens as t').using('users as u')
    .whereRef('u.id', '=', 't.user_id')
    .where('t.digest', '=', sha256(token)).where('t.expires_at', '>', now)
    .where(sql<boolean>`sha256(convert_to(u.password_hash, 'UTF8')) = t.password_hash_digest`)
    .returning(['t.user_id', 'u.email', 't.return_to'])
    .executeTakeFirst();
  return row && { userId: row.user_id, email: row.email, returnTo: row.return_to };
}

export async function purgeExpiredResetTokens(db: Executor, clock: Clock): Promise<void> {
  await deleteInBatches(db, 'password_reset_tokens', sql<boolean>`expires_at <= ${clock()}`);
}
