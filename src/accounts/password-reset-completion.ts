/**
 * Setting a new password through a reset link (password-reset.ts; NIST SP
 * 800-63B §5.1.1.2 for the rules). Success ends every session of the member
 * as a logout would (codes in flight, the grants issued under them,
 * back-channel logout notices), revokes the rest of their grants with their
 * refresh tokens, and queues the "your password was changed" mail, all in the
 * transaction that uses up the link and stores the new hash; then the
 * account's failed-login counter starts again. Whoever had the old password,
 * or a session or token got with it, is out.
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { inTransaction } from '../db/transaction.ts';
import { InvalidInput } from '../invalid-input.ts';
import { enqueueMail } from '../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import type { AttemptCounters } from './login-attempt-counters.ts';
import { accountCounterKey, accountOf } from './login-throttle.ts';
import { lockLiveMember } from './member-status.ts';
import { dropPendingLogins } from './one-time-codes/pending-logins.ts';
import { PASSWORD_CHANGED_MAIL_KIND } from './password-changed.mail.ts';
import { checkNewPassword } from './password-policy.ts';
import { peekResetToken, redeemResetToken } from './password-reset.ts';
import { hashPassword } from './passwords.ts';
import { endSessionsAndGrantsOfUser } from './sessions.ts';
import { updatePasswordHash } from './users.repository.ts';

export interface PasswordReset {
  readonly token: string;
  readonly newPassword: string;
  readonly ip: string;
  readonly log: EventLog;
  /** The language of the "your password was changed" mail. */
  readonly mailLocale: MailLocale;
}

/** Where the member goes next: the login, for the page it was for. */
export interface CompletedReset {
  readonly returnTo: string;
}

/**
 * Sets the new password; undefined when the link is not live (unknown, used,
 * expired, replaced, or the password changed since). Throws
 * {@link InvalidInput} naming `new_password` (password-policy.ts
 * `PasswordProblem`) without using the link up.
 */
export async function resetPassword(db: DB, clock: Clock, attempts: AttemptCounters, reset: PasswordReset): Promise<CompletedReset | undefined> {
  const live = await peekResetToken(db, reset.token, clock());
  if (!live) return invalid(reset);
  const problem = await checkNewPassword(reset.newPassword, live.email);
  if (problem) throw new InvalidInput([{ field: 'new_password', message: problem }]);
  const passwordHash = await hashPassword(reset.newPassword);
  const now = clock();
  const done = await inTransaction(db, async (trx) => {
    // The member's row before the link's: a disable or deletion at the same moment takes it first too, then deletes the link.
    await lockLiveMember(trx, live.userId);
    const redeemed = await redeemResetToken(trx, reset.token, now);
    if (!redeemed) return undefined;
    await updatePasswordHash(trx, redeemed.userId, passwordHash);
    await dropPendingLogins(trx, redeemed.userId);
    const { sessionsEnded, grantsRevoked } = await endSessionsAndGrantsOfUser(trx, redeemed.userId, now);
    const mailId = await enqueueMail(trx, { kind: PASSWORD_CHANGED_MAIL_KIND, recipient: redeemed.email, locale: reset.mailLocale, params: { changedAt: now.toISOString(), way: 'reset' } }, now);
    return { redeemed, sessionsEnded, grantsRevoked, mailId };
  });
  if (!done) return invalid(reset);
  const { redeemed, sessionsEnded, grantsRevoked, mailId } = done;
  logSecurityEvent(reset.log, { event: 'account.password_reset.completed', userId: redeemed.userId, sessionsEnded, grantsRevoked, ip: reset.ip });
  logSecurityEvent(reset.log, { event: 'mail.queued', mailId, kind: PASSWORD_CHANGED_MAIL_KIND, ip: reset.ip });
  await attempts.clear(accountCounterKey(accountOf(redeemed.email)));
  return { returnTo: redeemed.returnTo };
}

function invalid(reset: PasswordReset): undefined {
  logSecurityEvent(reset.log, { event: 'account.password_reset.invalid', ip: reset.ip });
  return undefined;
}
