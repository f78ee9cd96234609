/**
 * A sign-in with a passkey (`POST /login/passkey`): counted on the failed-login
 * counters like a password (login-throttle.ts), per client address — the
 * account is known only once the signature verified — then a session with
 * the passkey's `amr`. A browser that holds a live session of the same
 * member renews it (same `sid`, new `auth_time`): the re-authentication that
 * `prompt=login` and `max_age` ask for, as with a password.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { clientCounterKey } from '../../http/connection-limit.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import type { DelayPolicy } from '../login-attempt-counters.ts';
import { AccountDisabled, LoginThrottled, type LoginGuard } from '../login.service.ts';
import { recordSuccess, reserveAttempt, type ThrottleCounter } from '../login-throttle.ts';
import { sessionDevice } from '../session-device.ts';
import { beginSession, type NewSession } from '../sessions.ts';
import { PasskeyRejected, verifyPasskeyAssertion, type PasskeyAssertion } from './passkey-authentication.ts';
import type { RelyingParty } from './relying-party.ts';

/**
 * 10 free failures from one client address, then 1, 2, 4, 8, 15 … minutes.
 * A failure needs a signature that does not verify, which a member's own
 * authenticator does not make: more room than for passwords, for the many
 * members behind one address.
 */
export const PASSKEY_SOURCE_POLICY: DelayPolicy = { free: 10, baseSeconds: 60, maxSeconds: 15 * 60 };

export function passkeyThrottleCounters(ip: string): ThrottleCounter[] {
  return [{ key: `passkey:${clientCounterKey(ip)}`, policy: PASSKEY_SOURCE_POLICY, kind: 'source' }];
}

export interface PasskeyLoginInput extends PasskeyAssertion {
  readonly rememberMe: boolean;
  readonly userAgent?: string | undefined;
  /** The browser's session cookie: renewed when it is the same member's, replaced otherwise. */
  readonly previousSessionId?: string | undefined;
}

/**
 * Signs in; throws {@link LoginThrottled} (before anything is verified),
 * {@link PasskeyRejected} or `AccountDisabled` (login.service.ts; the attempt
 * stays counted, as with a disabled member's password).
 */
export async function logInWithPasskey(db: DB, clock: Clock, guard: LoginGuard, rp: RelyingParty, input: PasskeyLoginInput): Promise<{ session: NewSession; userId: number }> {
  const counters = passkeyThrottleCounters(input.ip);
  const refusal = await reserveAttempt(guard.attempts, clock, counters, { log: input.log, ip: input.ip });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  let verified;
  try {
    verified = await verifyPasskeyAssertion(db, clock, rp, input);
  } catch (error) {
    // A failure stays counted: its reservation is the record.
    if (error instanceof PasskeyRejected) {
      logSecurityEvent(input.log, { event: 'account.passkey.login_failed', reason: error.reason, userId: error.passkey?.userId ?? null, passkeyId: error.passkey?.id ?? null, ip: input.ip });
    }
    throw error;
  }
  await recordSuccess(guard.attempts, counters);
  const session = await beginSession(db, clock, {
    userId: verified.userId, remember: input.rememberMe, replacing: input.previousSessionId, device: sessionDevice(input.userAgent, input.ip), amr: verified.amr,
    // The passkey still the member's once their row is held: a removal at the same moment (which holds that row
    // first) either came first, and no session begins, or waits for this one and then ends it with the others.
    claim: async (trx) => (await trx.selectFrom('passkeys').select('id').where('id', '=', verified.passkeyId).executeTakeFirst()) !== undefined,
  });
  // Disabled, or deleted with its passkeys, or the passkey removed, since the assertion verified.
  if (session === 'disabled') throw new AccountDisabled();
  if (session === 'lapsed') {
    logSecurityEvent(input.log, { event: 'account.passkey.login_failed', reason: 'unknown-credential', userId: verified.userId, passkeyId: verified.passkeyId, ip: input.ip });
    throw new PasskeyRejected('unknown-credential');
  }
  logSecurityEvent(input.log, { event: 'account.passkey.login', userId: verified.userId, passkeyId: verified.passkeyId, amr: verified.amr, ip: input.ip });
  return { session, userId: verified.userId };
}
