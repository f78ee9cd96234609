/**
 * Failed-login throttling (SPEC §4): progressive delays per (account, IP) and
 * per account, with device cookies passing the account-wide limit.
 *
 * - A browser without a device cookie for the account is counted on the
 *   (account, IP) counter and on the account counter. An attacker on one IP
 *   is slowed down by the first; one spread over many IPs by the second.
 * - A browser with a valid device cookie (it logged into this account
 *   before) is counted only on that device's own counter: the account counter,
 *   which anybody can fill, never refuses it, and neither do other browsers
 *   behind the same IP. A stolen cookie still only buys the device's delays.
 *
 * No counter is kept per IP alone: 30 failures from one address used to lock
 * out everyone behind it (a school, a mobile carrier's NAT).
 */
import type { Clock } from '../clock.ts';
import { clientCounterKey } from '../http/connection-limit.ts';
import type { Executor } from '../db/executor.ts';
import { logSecurityEvent, type EventLog } from '../ops/security-events.ts';
import { purgeForgottenCounters, type AttemptCounters, type CountedAttempt, type DelayPolicy } from './login-attempt-counters.ts';

/** 5 free failures from one IP (or device), then 1, 2, 4, 8, 15, 15 … minutes between attempts. */
export const PER_SOURCE_POLICY: DelayPolicy = { free: 5, baseSeconds: 60, maxSeconds: 15 * 60 };
/** 10 free failures from anywhere without a device cookie, then 1, 2, 4, 8, 15 … minutes. */
export const PER_ACCOUNT_POLICY: DelayPolicy = { free: 10, baseSeconds: 60, maxSeconds: 15 * 60 };

export interface ThrottleCounter { readonly key: string; readonly policy: DelayPolicy; readonly kind: 'device' | 'source' | 'account' | 'second-factor' }

/** The account an attempt is for: its email as it is compared (trimmed, lower case). */
export function accountOf(email: string): string {
  // PostgreSQL text cannot hold NUL: such an email still gets its own (storable) counter.
  return email.trim().toLowerCase().replace(/\u0000/g, '\uFFFD');
}

/** The account-wide counter's key (the one anybody can fill). */
export function accountCounterKey(account: string): string {
  return `account:${account}`;
}

/** The counters an attempt is counted on. */
export function throttleCounters(account: string, ip: string, deviceNonce: string | undefined): ThrottleCounter[] {
  if (deviceNonce !== undefined) return [{ key: `device:${deviceNonce}`, policy: PER_SOURCE_POLICY, kind: 'device' }];
  return [
    { key: `pair:${account}|${clientCounterKey(ip)}`, policy: PER_SOURCE_POLICY, kind: 'source' },
    { key: accountCounterKey(account), policy: PER_ACCOUNT_POLICY, kind: 'account' },
  ];
}

/**
 * The account's one-time-code attempts from every browser, besides the counters of {@link throttleCounters}
 * (NIST SP 800-63B §5.2.2: failed attempts limited on the subscriber's account): without it each device
 * cookie — one per password sign-in from a new browser, collected before the codes were turned on — bought
 * its own free guesses. Only a right password (or a session) reaches a code, so only who knows it can fill
 * this; a right code clears it, a right password does not.
 */
export function secondFactorCounter(account: string): ThrottleCounter {
  return { key: `second-factor:${account}`, policy: PER_ACCOUNT_POLICY, kind: 'second-factor' };
}

/** An attempt refused: the seconds until another is allowed, and the counter that refused it. */
export interface Refusal { readonly wait: number; readonly lockedBy: ThrottleCounter['kind'] }

/**
 * Counts this attempt on each of its counters, before the password is checked.
 * Returns undefined when it may go on (a wrong password then leaves it
 * counted), or the refusal: refused attempts count nowhere. A refusal is
 * logged to `report` (docs/security-events.md) when given.
 */
export async function reserveAttempt(
  store: AttemptCounters, clock: Clock, counters: readonly ThrottleCounter[], report?: { log: EventLog; ip: string; userId?: number | null },
): Promise<Refusal | undefined> {
  const now = clock();
  const reserved: { key: string; counted: CountedAttempt }[] = [];
  // One counter after the other: a refusal by the second gives the first its place back.
  for (const counter of counters) {
    const reservation = await store.reserve(counter.key, counter.policy, now);
    if (!reservation.counted) {
      const { wait } = reservation;
      await Promise.all(reserved.map(({ key, counted }) => store.giveBack(key, counted)));
      if (report) {
        const { log, ip, userId } = report;
        logSecurityEvent(log, { event: 'account.login.locked', lockedBy: counter.kind, retryAfterSeconds: wait, ...(userId === undefined ? {} : { userId }), ip });
      }
      return { wait, lockedBy: counter.kind };
    }
    reserved.push({ key: counter.key, counted: reservation });
  }
  return undefined;
}

/** A successful login: the counters it was counted on start again. */
export async function recordSuccess(store: AttemptCounters, counters: readonly ThrottleCounter[]): Promise<void> {
  await Promise.all(counters.map((counter) => store.clear(counter.key)));
}

/** The database's forgotten counters (Redis forgets its own through their expiry). */
export async function purgeExpiredThrottles(db: Executor, clock: Clock): Promise<void> {
  await purgeForgottenCounters(db, clock());
}
