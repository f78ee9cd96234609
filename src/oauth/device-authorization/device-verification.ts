/**
 * The member's side of the device flow at /device (RFC 8628 §3.3, §5.1,
 * §5.4): a typed user code is looked up under a guessing limit, confirmed by
 * the member (which spends it and binds a one-time continuation to the
 * device authorization), then answered after login and consent.
 *
 * Guessing (§5.1): every user code checked is counted, before the check, on
 * the shared failed-login counters, per client address and for all addresses
 * together; a right one is given back. Past either limit codes are refused
 * unchecked, so the answer says nothing about the code.
 */
import type { KeyObject } from 'node:crypto';
import type { AttemptCounters, DelayPolicy } from '../../accounts/login-attempt-counters.ts';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { clientCounterKey } from '../../http/connection-limit.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import { newReference, referenceDigest } from './device-code.ts';
import {
  confirmUserCode, decideDevice, findConfirmedDevice, findPendingUserCode, type ConfirmedDevice, type PendingDevice,
} from './device-codes.repository.ts';
import { digestUserCode, formatUserCode, normalizeUserCode } from './user-code.ts';

/** Per client address: 10 wrong codes, then 1, 2, 4, 8, 15, 15 … minutes between tries. */
export const USER_CODE_SOURCE_POLICY: DelayPolicy = { free: 10, baseSeconds: 60, maxSeconds: 15 * 60 };
/**
 * From all addresses together: 100 wrong codes, then one try a second. At
 * most 86,400 guesses a day against 20^8 codes, each alive 10 minutes.
 */
export const USER_CODE_GLOBAL_POLICY: DelayPolicy = { free: 100, baseSeconds: 1, maxSeconds: 1 };
const GLOBAL_KEY = 'device-user-code:all';

export interface DeviceVerificationDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly attempts: AttemptCounters;
  /** HMAC key of user-code digests (derived-keys.ts). */
  readonly userCodeKey: KeyObject;
}

export interface Guess { readonly typed: unknown; readonly ip: string; readonly log: EventLog }

export type UserCodeAnswer<T> =
  | { readonly kind: 'malformed' }
  | { readonly kind: 'limited'; readonly retryAfterSeconds: number }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'found'; readonly userCode: string; readonly value: T };

/** The client asking with this user code, for the member to confirm; nothing is spent. */
export function lookUpUserCode(deps: DeviceVerificationDeps, guess: Guess): Promise<UserCodeAnswer<PendingDevice>> {
  return checkUserCode(deps, guess, (digest) => findPendingUserCode(deps.db, digest, deps.clock()));
}

/** The member confirmed: the user code is spent; `value` is the continuation for login and consent. */
export function confirmDevice(deps: DeviceVerificationDeps, guess: Guess): Promise<UserCodeAnswer<{ device: PendingDevice; continuation: string }>> {
  return checkUserCode(deps, guess, async (digest) => {
    const continuation = newReference();
    const device = await confirmUserCode(deps.db, digest, continuation.digest, deps.clock());
    return device && { device, continuation: continuation.value };
  });
}

async function checkUserCode<T>(deps: DeviceVerificationDeps, guess: Guess, use: (digest: Buffer) => Promise<T | undefined>): Promise<UserCodeAnswer<T>> {
  const code = normalizeUserCode(guess.typed);
  // A code of the wrong shape is a typing slip, told as such: it cannot match, so it is no guess.
  if (code === undefined) return { kind: 'malformed' };
  const now = deps.clock();
  const sourceKey = `device-user-code:${clientCounterKey(guess.ip)}`;
  const source = await deps.attempts.reserve(sourceKey, USER_CODE_SOURCE_POLICY, now);
  if (!source.counted) return limited(guess, 'source', source.wait);
  const global = await deps.attempts.reserve(GLOBAL_KEY, USER_CODE_GLOBAL_POLICY, now);
  if (!global.counted) {
    await deps.attempts.giveBack(sourceKey, source);
    return limited(guess, 'all', global.wait);
  }
  const value = await use(digestUserCode(deps.userCodeKey, code));
  if (value === undefined) {
    logSecurityEvent(guess.log, { event: 'oauth.device.user_code_refused', ip: guess.ip });
    return { kind: 'unknown' };
  }
  // A right code is no guess: both counters are as they were before it.
  await Promise.all([deps.attempts.giveBack(sourceKey, source), deps.attempts.giveBack(GLOBAL_KEY, global)]);
  return { kind: 'found', userCode: formatUserCode(code), value };
}

function limited(guess: Guess, limitedBy: 'source' | 'all', retryAfterSeconds: number): UserCodeAnswer<never> {
  logSecurityEvent(guess.log, { event: 'oauth.device.user_code_limited', limitedBy, retryAfterSeconds, ip: guess.ip });
  return { kind: 'limited', retryAfterSeconds };
}

/** The confirmed, undecided, live device authorization a continuation names. */
export async function findContinuation(deps: DeviceVerificationDeps, continuation: unknown): Promise<ConfirmedDevice | undefined> {
  const digest = referenceDigest(continuation);
  return digest && findConfirmedDevice(deps.db, digest, deps.clock());
}

export interface Decision {
  readonly continuation: unknown;
  readonly approved: boolean;
  /** The member's session: the grant will carry its `auth_time`, `amr` and `sid`. */
  readonly session: { readonly userId: number; readonly authTime: Date; readonly amr: readonly string[]; readonly sid: string };
}

/** The member's answer, once; false when the continuation is unknown, answered or expired. */
export async function decide(deps: DeviceVerificationDeps, decision: Decision): Promise<boolean> {
  const digest = referenceDigest(decision.continuation);
  if (!digest) return false;
  return decideDevice(deps.db, {
    continuationDigest: digest, approved: decision.approved, now: deps.clock(), ...decision.session,
  });
}
