/**
 * One-time codes as a second factor (RFC 6238; NIST SP 800-63B §5.1.4.2,
 * §5.1.2; OWASP Multifactor Authentication Cheat Sheet): enrolment confirmed
 * by a first code, ten recovery codes shown once, codes checked under the
 * login throttle of the account, a code never accepted twice, every change
 * told to the member by mail.
 */
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { enqueueMail } from '../../mail/mail-outbox.repository.ts';
import type { MailLocale } from '../../mail/mail.tables.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import { deviceNonce } from '../login-device-cookie.ts';
import { accountOf, recordSuccess, reserveAttempt, secondFactorCounter, throttleCounters } from '../login-throttle.ts';
import { LoginThrottled, type LoginGuard } from '../login.service.ts';
import { wouldLeaveRequiredRoleWithoutFactor } from '../second-factor-requirement.ts';
import { ONE_TIME_CODE_MAIL_KINDS, type OneTimeCodeMailKind } from './one-time-codes.mail.ts';
import {
  claimTimeStep, countUnusedRecoveryCodes, deleteOneTimeCodes, deletePasskeyRows, findSecondFactors, findSecretRow, hasSecondFactor, holdEnabledSecret, replaceRecoveryCodes,
  storePendingSecret, useRecoveryCode, type SecondFactors,
} from './one-time-codes.repository.ts';
import { digestRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.ts';
import { openSecret, sealSecret } from './secret-box.ts';
import { acceptedTimeStep, newTotpSecret } from './totp.ts';

export { findSecondFactors, hasSecondFactor, type SecondFactors };

/** Keys derived for one-time codes alone (oauth/keys/derived-keys.ts): the secrets' AES-256-GCM key, the recovery codes' HMAC key. */
export interface OneTimeCodeKeys {
  readonly secret: KeyObject;
  readonly recoveryCode: KeyObject;
}

/** Who is asked for a code, and where a mail about it goes (no locale: MAIL=off). */
export interface CodeHolder {
  readonly userId: number;
  readonly email: string;
  readonly mailLocale?: MailLocale | undefined;
}

/** The secret of an enrolment under way (for the QR code), or undefined. */
export async function pendingEnrolmentSecret(db: Executor, keys: OneTimeCodeKeys, userId: number): Promise<string | undefined> {
  const row = await findSecretRow(db, userId);
  return row && row.enabled_at === null ? openSecret(keys.secret, userId, row.secret) : undefined;
}

/** Starts (or restarts) an enrolment: a fresh secret, not yet in use. False when codes are already on. */
export async function startEnrolment(db: Executor, keys: OneTimeCodeKeys, clock: Clock, userId: number): Promise<boolean> {
  return storePendingSecret(db, userId, sealSecret(keys.secret, userId, newTotpSecret()), clock());
}

/**
 * Turns codes on when `code` is right for the pending secret: the ten
 * recovery codes, in clear this once; undefined when the code is wrong (or
 * nothing is pending); `restarted` when the code was right but the
 * enrolment was started anew meanwhile (another tab): the new secret stays
 * pending, to be confirmed with a code of its own.
 */
export async function confirmEnrolment(
  db: DB, keys: OneTimeCodeKeys, clock: Clock, holder: CodeHolder, code: string, log: EventLog,
): Promise<string[] | 'restarted' | undefined> {
  const row = await findSecretRow(db, holder.userId);
  const sealedSecret = row && row.enabled_at === null ? row.secret : undefined;
  const secret = sealedSecret && openSecret(keys.secret, holder.userId, sealedSecret);
  const now = clock();
  const step = secret === undefined ? undefined : acceptedTimeStep(secret, code, now, null);
  if (step === undefined || sealedSecret === undefined) return undefined;
  const codes = newRecoveryCodes();
  const confirmed = await inTransaction(db, async (trx) => {
    if (!(await claimTimeStep(trx, holder.userId, step, now, { sealedSecret }))) {
      const pending = await findSecretRow(trx, holder.userId);
      return pending !== undefined && pending.enabled_at === null && !pending.secret.equals(sealedSecret) ? 'restarted' as const : false;
    }
    await replaceRecoveryCodes(trx, holder.userId, digests(keys, holder.userId, codes));
    await queueSecondFactorMail(trx, holder, ONE_TIME_CODE_MAIL_KINDS.enabled, now, log);
    return true;
  });
  if (confirmed !== true) return confirmed === 'restarted' ? confirmed : undefined;
  logSecurityEvent(log, { event: 'account.second_factor.enrolled', userId: holder.userId, method: 'otp' });
  return codes;
}

/** What a code was. */
export type CodeKind = 'otp' | 'recovery_code';

export class WrongCode extends Error {
  constructor() {
    super('Wrong code.');
    this.name = 'WrongCode';
  }
}

/** Where a code is checked: the account's throttle counters. */
export interface CodeAttempt extends CodeHolder {
  readonly code: string;
  readonly ip: string;
  readonly deviceCookie: string | undefined;
  readonly stepUp: boolean;
  readonly log: EventLog;
}

/**
 * Checks a one-time code or a recovery code under the login throttle of the
 * account (login-throttle.ts): throws {@link LoginThrottled} before looking,
 * or {@link WrongCode} (which stays counted). A right code clears the
 * counters, as a right password does; a recovery code is spent and mailed about.
 */
export async function checkSecondFactor(db: DB, keys: OneTimeCodeKeys, clock: Clock, guard: LoginGuard, attempt: CodeAttempt): Promise<CodeKind> {
  const account = accountOf(attempt.email);
  const counters = [...throttleCounters(account, attempt.ip, deviceNonce(guard.deviceKey, account, attempt.deviceCookie)), secondFactorCounter(account)];
  const refusal = await reserveAttempt(guard.attempts, clock, counters, { log: attempt.log, ip: attempt.ip, userId: attempt.userId });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  const kind = await acceptCode(db, keys, clock, attempt);
  if (kind === undefined) {
    logSecurityEvent(attempt.log, { event: 'account.second_factor.failed', userId: attempt.userId, stepUp: attempt.stepUp, ip: attempt.ip });
    throw new WrongCode();
  }
  await recordSuccess(guard.attempts, counters);
  logSecurityEvent(attempt.log, { event: 'account.second_factor.succeeded', userId: attempt.userId, method: kind, stepUp: attempt.stepUp, ip: attempt.ip });
  return kind;
}

async function acceptCode(db: DB, keys: OneTimeCodeKeys, clock: Clock, attempt: CodeAttempt): Promise<CodeKind | undefined> {
  const now = clock();
  const row = await findSecretRow(db, attempt.userId);
  if (!row || row.enabled_at === null) return undefined;
  const recovery = normalizeRecoveryCode(attempt.code);
  if (recovery !== undefined) {
    const used = await inTransaction(db, async (trx) => {
      if (!(await useRecoveryCode(trx, attempt.userId, digestRecoveryCode(keys.recoveryCode, attempt.userId, recovery), now))) return undefined;
      await queueSecondFactorMail(trx, attempt, ONE_TIME_CODE_MAIL_KINDS.recoveryCodeUsed, now, attempt.log);
      return countUnusedRecoveryCodes(trx, attempt.userId);
    });
    if (used === undefined) return undefined;
    logSecurityEvent(attempt.log, { event: 'account.recovery_code.used', userId: attempt.userId, remaining: used, ip: attempt.ip });
    return 'recovery_code';
  }
  const secret = openSecret(keys.secret, attempt.userId, row.secret);
  const step = secret === undefined ? undefined : acceptedTimeStep(secret, attempt.code, now, row.last_used_step);
  return step !== undefined && await claimTimeStep(db, attempt.userId, step, now) ? 'otp' : undefined;
}

/**
 * Turns codes off after a right current code (throws as {@link checkSecondFactor}); `factor-required` and
 * nothing changed when they are the second factor of a member whose role needs one (`requiredRoles`) and who
 * has no passkey: the member adds one first.
 */
export async function turnOffOneTimeCodes(
  db: DB, keys: OneTimeCodeKeys, clock: Clock, guard: LoginGuard, attempt: CodeAttempt, requiredRoles: readonly number[],
): Promise<'off' | 'factor-required'> {
  await checkSecondFactor(db, keys, clock, guard, attempt);
  const outcome = await inTransaction(db, async (trx) => {
    if (await wouldLeaveRequiredRoleWithoutFactor(trx, requiredRoles, attempt.userId, 'one-time-codes')) return 'factor-required' as const;
    // Of two requests at once (two tabs, each with its own right code), the second finds them off already: one mail.
    if (!(await deleteOneTimeCodes(trx, attempt.userId))) return 'off' as const;
    await queueSecondFactorMail(trx, attempt, ONE_TIME_CODE_MAIL_KINDS.disabled, clock(), attempt.log);
    return 'turned-off' as const;
  });
  if (outcome === 'turned-off') logSecurityEvent(attempt.log, { event: 'account.second_factor.removed', userId: attempt.userId, by: 'member', passkeysDeleted: 0 });
  return outcome === 'factor-required' ? outcome : 'off';
}

/**
 * Ten new recovery codes after a right current code (throws as {@link checkSecondFactor}); the old ones stop
 * working. Undefined when codes were turned off after the check (another tab, an operator's reset): the
 * off stands, and no codes are stored that nothing could use.
 */
export async function regenerateRecoveryCodes(db: DB, keys: OneTimeCodeKeys, clock: Clock, guard: LoginGuard, attempt: CodeAttempt): Promise<string[] | undefined> {
  await checkSecondFactor(db, keys, clock, guard, attempt);
  const codes = newRecoveryCodes();
  const replaced = await inTransaction(db, async (trx) => {
    if (!(await holdEnabledSecret(trx, attempt.userId))) return false;
    await replaceRecoveryCodes(trx, attempt.userId, digests(keys, attempt.userId, codes));
    await queueSecondFactorMail(trx, attempt, ONE_TIME_CODE_MAIL_KINDS.regenerated, clock(), attempt.log);
    return true;
  });
  if (!replaced) return undefined;
  logSecurityEvent(attempt.log, { event: 'account.recovery_codes.regenerated', userId: attempt.userId });
  return codes;
}

export interface SecondFactorReset {
  readonly oneTimeCodes: boolean;
  readonly passkeysDeleted: number;
}

/** Thrown inside {@link resetSecondFactor}'s transaction to roll it back. */
const NOTHING_TO_RESET = new Error('nothing to reset');

/**
 * An operator's reset: codes, recovery codes and passkeys gone; the member told. Undefined when the member
 * had none of them: nothing deleted, no mail, no event (the audit log and the mail would tell of a
 * removal that did not happen).
 */
export async function resetSecondFactor(db: DB, clock: Clock, holder: CodeHolder, log: EventLog): Promise<SecondFactorReset | undefined> {
  const reset = await inTransaction(db, async (trx) => {
    const oneTimeCodes = await deleteOneTimeCodes(trx, holder.userId);
    const passkeysDeleted = await deletePasskeyRows(trx, holder.userId);
    // Nothing that counted as a factor: undo what was deleted (an enrolment never confirmed, say).
    if (!oneTimeCodes && passkeysDeleted === 0) throw NOTHING_TO_RESET;
    await queueSecondFactorMail(trx, holder, ONE_TIME_CODE_MAIL_KINDS.reset, clock(), log);
    return { oneTimeCodes, passkeysDeleted };
  }).catch((error: unknown) => {
    if (error === NOTHING_TO_RESET) return undefined;
    throw error;
  });
  if (reset) logSecurityEvent(log, { event: 'account.second_factor.removed', userId: holder.userId, by: 'operator', passkeysDeleted: reset.passkeysDeleted });
  return reset;
}

function digests(keys: OneTimeCodeKeys, userId: number, codes: readonly string[]): Buffer[] {
  return codes.map((code) => digestRecoveryCode(keys.recoveryCode, userId, normalizeRecoveryCode(code)!));
}

/** A mail about the second factor to its holder, in the change's transaction; none when mail is off (no `mailLocale`). */
export async function queueSecondFactorMail(trx: Executor, holder: CodeHolder, kind: OneTimeCodeMailKind, now: Date, log: EventLog): Promise<void> {
  if (holder.mailLocale === undefined) return;
  const mailId = await enqueueMail(trx, { kind, recipient: holder.email, locale: holder.mailLocale, params: { at: now.toISOString() } }, now);
  logSecurityEvent(log, { event: 'mail.queued', mailId, kind, ip: 'ip' in holder ? String(holder.ip) : 'cli' });
}
