/**
 * A member changing their own password (/settings/security; NIST SP 800-63B
 * §5.1.1.2, OWASP Authentication Cheat Sheet "Change password"): the current
 * password first — counted on the same failed-login counters as a login from
 * this browser, so a borrowed session cannot be used to guess it — then the
 * new one under the password rules. Success ends every other session of the
 * member as a logout would (their codes in flight, the grants issued under
 * them, back-channel logout notices), and revokes every grant not issued
 * under this session (those of sessions that ended before: a refresh token
 * got with the old password), in the same transaction as the new hash,
 * queues the "your password was changed" mail there too, and starts the
 * account's failed-login counter again: whoever knew the old
 * password is signed out, and the member's own browsers are not kept out.
 */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import { inTransaction } from '../db/transaction.ts';
import { InvalidInput } from '../invalid-input.ts';
import { enqueueMail } from '../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import { deviceNonce } from './login-device-cookie.ts';
import { accountCounterKey, accountOf, recordSuccess, reserveAttempt, throttleCounters } from './login-throttle.ts';
import { LoginThrottled, type LoginGuard } from './login.service.ts';
import { dropPendingLogins } from './one-time-codes/pending-logins.ts';
import { checkNewPassword } from './password-policy.ts';
import { PASSWORD_CHANGED_MAIL_KIND } from './password-changed.mail.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { endSessionsAndGrantsOfUser, holdLiveSession, type EndedSessions } from './sessions.ts';
import { updatePasswordHash } from './users.repository.ts';

export interface PasswordChange {
  readonly userId: number;
  readonly email: string;
  /** The session the change is made in: it stays. */
  readonly sid: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  readonly ip: string;
  readonly deviceCookie: string | undefined;
  readonly log?: EventLog;
  /** The language of the "your password was changed" mail; undefined: no mail (MAIL=off). */
  readonly mailLocale?: MailLocale | undefined;
}

/**
 * The change was overtaken while the current password was being checked: the password was set anew
 * meanwhile (a reset link, `user set-password`, another tab), the member disabled or deleted, or the
 * session it was made in ended. Nothing was changed: the later word stands.
 */
export class PasswordChangeLapsed extends Error {
  constructor() {
    super('The password or the session changed while the change was being made.');
    this.name = 'PasswordChangeLapsed';
  }
}

/**
 * Changes the password; throws {@link LoginThrottled} (too many wrong current
 * passwords), {@link InvalidInput} naming `current_password` (message
 * `wrong`) or `new_password` (the rule broken: password-policy.ts
 * `PasswordProblem`), or {@link PasswordChangeLapsed}. Returns what ended with it.
 */
export async function changePassword(db: DB, clock: Clock, guard: LoginGuard, change: PasswordChange): Promise<EndedSessions> {
  // What the form lacks or breaks is said first, every field at once, without counting a try: none of it
  // depends on the current password (an empty one is no guess at it).
  const problem = await checkNewPassword(change.newPassword, change.email);
  const formErrors = [
    ...(change.currentPassword === '' ? [{ field: 'current_password', message: 'missing' }] : []),
    ...(problem ? [{ field: 'new_password', message: problem }] : []),
  ];
  if (formErrors.length > 0) throw new InvalidInput(formErrors);
  const account = accountOf(change.email);
  const counters = throttleCounters(account, change.ip, deviceNonce(guard.deviceKey, account, change.deviceCookie));
  const refusal = await reserveAttempt(guard.attempts, clock, counters, change.log && { log: change.log, ip: change.ip, userId: change.userId });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', change.userId).executeTakeFirstOrThrow();
  // A wrong current password stays counted: its reservation is the record.
  if (!(await verifyPassword(row.password_hash, change.currentPassword))) throw new InvalidInput([{ field: 'current_password', message: 'wrong' }]);
  const passwordHash = await hashPassword(change.newPassword);
  const now = clock();
  const changed = await inTransaction(db, async (trx) => {
    if (!(await holdForChange(trx, change, row.password_hash, now))) return undefined;
    await updatePasswordHash(trx, change.userId, passwordHash);
    // A second step of a sign-in with the old password would still begin a session.
    await dropPendingLogins(trx, change.userId);
    const mail = change.mailLocale && { kind: PASSWORD_CHANGED_MAIL_KIND, recipient: change.email, locale: change.mailLocale, params: { changedAt: now.toISOString() } };
    return { ended: await endSessionsAndGrantsOfUser(trx, change.userId, now, { except: change.sid }), mailId: mail && await enqueueMail(trx, mail, now) };
  });
  if (changed === undefined) {
    // The current password was right: counted as a right one is, though the change lapsed.
    await recordSuccess(guard.attempts, counters);
    throw new PasswordChangeLapsed();
  }
  const { ended, mailId } = changed;
  if (mailId !== undefined && change.log) logSecurityEvent(change.log, { event: 'mail.queued', mailId, kind: PASSWORD_CHANGED_MAIL_KIND, ip: change.ip });
  await Promise.all([recordSuccess(guard.attempts, counters), guard.attempts.clear(accountCounterKey(account))]);
  return ended;
}

/**
 * The member's row held for the change (`for no key update`, as a reset, `user set-password`, a disable and
 * a deletion hold it), and whether the change may still be made: the password is still the one the current
 * password was verified against, the member is neither disabled nor deleted, and the session the change is
 * made in is still live. A reset at the same moment either waits for this change and then sets its own
 * password and ends every session, or came first, and this change finds the password changed.
 */
async function holdForChange(trx: Executor, change: PasswordChange, verifiedHash: string, now: Date): Promise<boolean> {
  const member = await trx.selectFrom('users').select(['password_hash', 'disabled_at', 'deleted_at'])
    .where('id', '=', change.userId).forNoKeyUpdate().executeTakeFirst();
  if (!member || member.deleted_at !== null || member.disabled_at !== null || member.password_hash !== verifiedHash) return false;
  return holdLiveSession(trx, change.sid, change.userId, now);
}
