/**
 * Password login and logout, shared by the HTML form and the JSON API.
 * Unknown email and wrong password give the same answer in the same time (no
 * enumeration); an email PostgreSQL cannot even store (NUL byte) is one more
 * unknown email, never a database error.
 */
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import { PASSWORD_ONLY, type AuthenticationMethod } from './authentication-methods.ts';
import type { AttemptCounters } from './login-attempt-counters.ts';
import { findSecondFactors, hasSecondFactor, type SecondFactors } from './one-time-codes/one-time-codes.repository.ts';
import { deviceCookieAfterLogin, deviceNonce } from './login-device-cookie.ts';
import { accountOf, recordSuccess, reserveAttempt, throttleCounters, type ThrottleCounter } from './login-throttle.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { sessionDevice } from './session-device.ts';
import { beginSession, endSession, type EndedSession, type NewSession, type SessionBeginning, type SignInRefused } from './sessions.ts';
import { findUserCredentialsByEmail, type UserRow } from './users.repository.ts';

export interface LoginInput {
  email: string;
  password: string;
  rememberMe: boolean;
  ip: string;
  /** The browser's User-Agent, shown to the member among their sessions. */
  userAgent?: string | undefined;
  /** The browser's current session cookie, ended when the login succeeds. */
  previousSessionId?: string | undefined;
  /** The browser's device cookie (login-device-cookie.ts), if any. */
  deviceCookie?: string | undefined;
  /** Where a refusal for too many failures is reported (docs/security-events.md). */
  log?: EventLog | undefined;
}

export interface LoginResult {
  session: NewSession;
  user: UserRow;
  /** The device cookie to set: it lets this browser past the account-wide limit next time. */
  deviceCookie: string;
}

/**
 * The password was right and the member has a second factor: no session yet
 * (web/login/second-factor.page.ts asks for it). The throttle's counters are
 * not cleared: they are, once the second factor is right too.
 */
export interface SecondFactorNeeded {
  secondFactor: SecondFactors;
  user: UserRow;
  /** The account as the throttle counts it. */
  account: string;
  /** The hash the password was verified against: the second step is held only while it is still the member's. */
  passwordHash: string;
}

export const INVALID_CREDENTIALS = 'Wrong email or password.';
const MAX_EMAIL_LENGTH = 254;

/** Wrong email or password, or an unknown email: one answer for all (no enumeration). */
export class InvalidCredentials extends Error {
  constructor() {
    super(INVALID_CREDENTIALS);
    this.name = 'InvalidCredentials';
  }
}

export const ACCOUNT_DISABLED = 'This account is disabled. Please contact the organisation team.';

/** The right password of a disabled member (member-status.ts): refused until the account is enabled again. */
export class AccountDisabled extends Error {
  constructor() {
    super(ACCOUNT_DISABLED);
    this.name = 'AccountDisabled';
  }
}

/**
 * Too many failed logins: the next attempt is allowed in `retryAfterSeconds`.
 * `lockedBy` `account`: the account-wide counter, which anybody can fill; this
 * browser may be unlocked by email (login-unlock.ts).
 */
export class LoginThrottled extends Error {
  constructor(readonly retryAfterSeconds: number, readonly lockedBy: ThrottleCounter['kind'] = 'source') {
    const minutes = minutesToWait(retryAfterSeconds);
    super(`Too many failed logins. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`);
    this.name = 'LoginThrottled';
  }
}

/** What guards logins: the key that signs device cookies and the store of failed-attempt counters. */
export interface LoginGuard {
  readonly deviceKey: KeyObject;
  readonly attempts: AttemptCounters;
}

/**
 * Logs in; throws {@link LoginThrottled} (before the password is checked),
 * {@link InvalidCredentials} or {@link AccountDisabled}. A member with a
 * second factor gets {@link SecondFactorNeeded} instead of a session.
 */
export async function logIn(db: DB, clock: Clock, guard: LoginGuard, input: LoginInput): Promise<LoginResult | SecondFactorNeeded> {
  const { deviceKey, attempts } = guard;
  const email = input.email.trim();
  const account = accountOf(email);
  const counters = throttleCounters(account, input.ip, deviceNonce(deviceKey, account, input.deviceCookie));
  // Looked up before the counters, so that a refusal names the member whose account is being guessed at (the audit log).
  const found = isPossibleEmail(email) ? await findUserCredentialsByEmail(db, email) : undefined;
  const refusal = await reserveAttempt(attempts, clock, counters, input.log && { log: input.log, ip: input.ip, userId: found?.id ?? null });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  const valid = found ? await verifyPassword(found.password_hash, input.password) : await verifyAgainstDummy(input.password);
  // A failure stays counted: its reservation is the record.
  if (!found || !valid) {
    if (input.log) {
      logSecurityEvent(input.log, { event: 'account.login.failed', userId: found?.id ?? null, reason: found ? 'wrong-password' : 'unknown-email', ip: input.ip });
    }
    throw new InvalidCredentials();
  }
  const { password_hash: passwordHash, disabled_at: disabledAt, ...user } = found;
  // Said only to whoever knows the password: it tells a guesser nothing. The attempt stays counted.
  if (disabledAt !== null) {
    if (input.log) logSecurityEvent(input.log, { event: 'account.login.disabled', userId: user.id, ip: input.ip });
    throw new AccountDisabled();
  }
  const secondFactor = await findSecondFactors(db, user.id);
  if (hasSecondFactor(secondFactor)) return { secondFactor, user, account, passwordHash };
  await recordSuccess(attempts, counters);
  return startSession(db, clock, deviceKey, { ...input, userId: user.id, account, amr: PASSWORD_ONLY, passwordHash }).then((started) => ({ ...started, user }));
}

/** What starts a session once every factor is right. */
export interface SessionStart {
  userId: number;
  account: string;
  rememberMe: boolean;
  amr: readonly AuthenticationMethod[];
  ip: string;
  userAgent?: string | undefined;
  previousSessionId?: string | undefined;
  deviceCookie?: string | undefined;
  /** Where the sign-in is recorded (`account.login.succeeded`). */
  log?: EventLog | undefined;
  /** The hash the password was verified against, when the sign-in used it (sessions.ts `beginSession`). */
  passwordHash?: string | undefined;
  /** What the sign-in uses up, taken in the session's transaction (a second step's pending login). */
  claim?: SessionBeginning['claim'];
}

/**
 * The session (the browser's earlier one renewed or replaced: the apps keep their tokens) and the device cookie
 * to set. Throws {@link AccountDisabled} when the member was disabled since the proof, {@link InvalidCredentials}
 * when the password changed since, the member is gone or `claim` found nothing (sessions.ts `beginSession`).
 */
export async function startSession(db: DB, clock: Clock, deviceKey: KeyObject, start: SessionStart): Promise<{ session: NewSession; deviceCookie: string }> {
  const session = await beginSession(db, clock, {
    userId: start.userId, remember: start.rememberMe, replacing: start.previousSessionId, device: sessionDevice(start.userAgent, start.ip), amr: start.amr,
    passwordHash: start.passwordHash, claim: start.claim,
  });
  if (typeof session === 'string') throw signInRefusal(session, { log: start.log, userId: start.userId, ip: start.ip });
  if (start.log) logSecurityEvent(start.log, { event: 'account.login.succeeded', userId: start.userId, amr: start.amr, ip: start.ip });
  return { session, deviceCookie: deviceCookieAfterLogin(deviceKey, start.account, start.deviceCookie) };
}

/**
 * The error of a sign-in whose proof no longer held when its session or second step would begin: the
 * member's password, as the form had it, is no longer right; or the member was disabled. Recorded as
 * refusals of the password are (`account.login.failed` with reason `lapsed`, `account.login.disabled`).
 */
export function signInRefusal(refused: SignInRefused, report: { log?: EventLog | undefined; userId: number; ip: string }): InvalidCredentials | AccountDisabled {
  if (report.log) {
    logSecurityEvent(report.log, refused === 'disabled'
      ? { event: 'account.login.disabled', userId: report.userId, ip: report.ip }
      : { event: 'account.login.failed', userId: report.userId, reason: 'lapsed', ip: report.ip });
  }
  return refused === 'disabled' ? new AccountDisabled() : new InvalidCredentials();
}

/** Whole minutes, rounded up, as the messages give the wait; the exact seconds in `Retry-After`. */
export function minutesToWait(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60));
}

/**
 * Ends the session with this cookie value, if any, and revokes the grants
 * issued under it (`POST /logout`, `POST /api/user/logout`, RP-initiated
 * logout): what the member ended, or undefined when there was no session.
 * A member's own logout is recorded in `report` (RP-initiated logout records its own event).
 */
export async function logOut(db: DB, sessionId: string | undefined, now: Date, report?: { log: EventLog; ip: string }): Promise<EndedSession | undefined> {
  const ended = sessionId ? await endSession(db, sessionId, now) : undefined;
  if (ended && report) logSecurityEvent(report.log, { event: 'account.logout', userId: ended.userId, grantsRevoked: ended.grantsRevoked, ip: report.ip });
  return ended;
}

function isPossibleEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && !email.includes('\u0000');
}
