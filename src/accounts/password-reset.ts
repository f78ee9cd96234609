/**
 * Resetting a forgotten password by email (docs/security.md, "Resetting a
 * forgotten password"; OWASP Forgot Password Cheat Sheet; NIST SP 800-63B
 * §6.1.2.3). Asking is answered the same way whether the address has an
 * account or not (mailed-link.ts); the mail's composer
 * (password-reset.mail.ts) finds the account when the mail is sent. At most
 * {@link RESET_MAILS_PER_HOUR} mails per address and {@link RESET_REQUESTS_PER_IP_PER_HOUR}
 * requests per client address (an IPv6 /64) an hour.
 *
 * A link is good for {@link RESET_LINK_MINUTES} minutes and once; a newer link for the member
 * replaces it, and any change of the password ends it (the row keeps a
 * digest of the password hash it was issued under).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { inTransaction, lockForTransactionOf } from '../db/transaction.ts';
import { logSecurityEvent } from '../ops/security-events.ts';
import type { AttemptCounters, DelayPolicy } from './login-attempt-counters.ts';
import { digestLinkToken, isLinkToken, queueLinkMail, type LinkMailKind, type LinkMailRequest } from './mailed-link.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

export const RESET_MAIL_KIND = 'password-reset';
export const RESET_MAILS_PER_HOUR = 3;
export const RESET_REQUESTS_PER_IP_PER_HOUR = 10;
/** Three mails at once, then one an hour: never more than three in any hour. */
export const RESET_MAIL_POLICY: DelayPolicy = { free: RESET_MAILS_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
export const RESET_IP_POLICY: DelayPolicy = { free: RESET_REQUESTS_PER_IP_PER_HOUR, baseSeconds: 3600, maxSeconds: 3600 };
/** How long a link works (OWASP Forgot Password Cheat Sheet: short-lived, single use). */
export const RESET_LINK_MINUTES = 30;

/** The client's limit first: a flood from one address does not use up the members' own. */
const RESET_MAIL: LinkMailKind = {
  kind: RESET_MAIL_KIND,
  limits: (account, client) => [{ key: `reset-ip:${client}`, policy: RESET_IP_POLICY }, { key: `reset-mail:${account}`, policy: RESET_MAIL_POLICY }],
  limitedEvent: 'account.password_reset.limited',
};

/** Queues a reset mail for this address unless it or the client asked too often. Tells the caller nothing either way. */
export async function requestResetMail(db: Executor, clock: Clock, attempts: AttemptCounters, request: LinkMailRequest): Promise<void> {
  logSecurityEvent(request.log, { event: 'account.password_reset.requested', ip: request.ip });
  await queueLinkMail(db, clock, attempts, RESET_MAIL, request);
}

/** The password hash a link was issued under, as the row keeps it: SHA-256, as the queries below compute it in SQL. */
function digestPasswordHash(passwordHash: string): Buffer {
  return createHash('sha256').update(passwordHash).digest();
}

export interface NewResetToken {
  readonly token: string;
  readonly userId: number;
  readonly passwordHash: string;
  readonly returnTo: string;
}

/**
 * Stores a new link for the member; their older links stop working ("invalidated by a newer request").
 * Under the member's lock: links composed side by side (the mail sender sends a batch at once) replace
 * one another in turn, where each would otherwise delete before the others insert, leaving all live.
 */
export async function storeResetToken(db: Executor, token: NewResetToken, now: Date): Promise<void> {
  await inTransaction(db, async (trx) => {
    await lockForTransactionOf(trx, 'password-reset', token.userId);
    await trx.deleteFrom('password_reset_tokens').where('user_id', '=', token.userId).execute();
    await trx.insertInto('password_reset_tokens').values({
      digest: digestLinkToken(token.token), user_id: token.userId, return_to: token.returnTo,
      password_hash_digest: digestPasswordHash(token.passwordHash),
      expires_at: new Date(now.getTime() + RESET_LINK_MINUTES * 60 * 1000),
    }).execute();
  });
}

export interface LiveResetToken {
  readonly userId: number;
  readonly email: string;
  readonly returnTo: string;
}

/** The live link's member, without using it up (the form's GET, and the password check before the redemption). */
export async function peekResetToken(db: Executor, token: string, now: Date): Promise<LiveResetToken | undefined> {
  if (!isLinkToken(token)) return undefined;
  const row = await db.selectFrom('password_reset_tokens as t').innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.user_id', 'u.email', 't.return_to'])
    .where('t.digest', '=', digestLinkToken(token)).where('t.expires_at', '>', now).where('u.disabled_at', 'is', null)
    .where(sql<boolean>`sha256(convert_to(u.password_hash, 'UTF8')) = t.password_hash_digest`)
    .executeTakeFirst();
  return row && { userId: row.user_id, email: row.email, returnTo: row.return_to };
}

/** Consumes a live link in one statement: a second use, one after expiry or after a password change finds nothing. */
export async function redeemResetToken(db: Executor, token: string, now: Date): Promise<LiveResetToken | undefined> {
  if (!isLinkToken(token)) return undefined;
  const row = await db.deleteFrom('password_reset_tokens as t').using('users as u')
    .whereRef('u.id', '=', 't.user_id')
    .where('t.digest', '=', digestLinkToken(token)).where('t.expires_at', '>', now).where('u.disabled_at', 'is', null)
    .where(sql<boolean>`sha256(convert_to(u.password_hash, 'UTF8')) = t.password_hash_digest`)
    .returning(['t.user_id', 'u.email', 't.return_to'])
    .executeTakeFirst();
  return row && { userId: row.user_id, email: row.email, returnTo: row.return_to };
}

export async function purgeExpiredResetTokens(db: Executor, clock: Clock): Promise<void> {
  await deleteInBatches(db, 'password_reset_tokens', sql<boolean>`expires_at <= ${clock()}`);
}
