/**
 * A passkey as the second step (`POST /login/second-factor/passkey`): after
 * the password of a login, or at the step-up of a live session. The passkey
 * must be the member's own; the methods are the password's (or the
 * session's) and the passkey's together, so a password and a security key
 * that verifies nobody are two factors (NIST SP 800-63B §4.2.1: a memorized
 * secret and a single-factor cryptographic authenticator).
 *
 * After a password it is counted on the account's failed-login counters, as
 * a one-time code at that step is (login-throttle.ts), and clears them when
 * it verifies: the password's success left them counted until the second
 * factor's. At a step-up nothing was just proved but the passkey, which
 * cannot be guessed: it is counted per client address, as the login page's
 * passkey is, and leaves the password's counters alone — a key alone must
 * not reset the guesses of the password it does not know.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { withFactor, type AuthenticationMethod } from '../authentication-methods.ts';
import { deviceNonce } from '../login-device-cookie.ts';
import { accountOf, recordSuccess, reserveAttempt, throttleCounters, type ThrottleCounter } from '../login-throttle.ts';
import { LoginThrottled, type LoginGuard } from '../login.service.ts';
import { PasskeyRejected, verifyPasskeyAssertion, type PasskeyAssertion } from './passkey-authentication.ts';
import { passkeyThrottleCounters } from './passkey-login.ts';
import type { RelyingParty } from './relying-party.ts';

export interface PasskeyStep extends PasskeyAssertion {
  /** Whose step it is: the member of the pending login or of the session. */
  readonly userId: number;
  readonly email: string;
  /** The methods already proved: the password's, or the session's at a step-up. */
  readonly priorAmr: readonly string[];
  readonly deviceCookie: string | undefined;
  readonly stepUp: boolean;
}

export interface ProvedStep {
  /** The session's methods from now on. */
  readonly amr: AuthenticationMethod[];
  /** Whether the passkey verified its member: a whole sign-in at AAL2 by itself (NIST SP 800-63B §4.2.3 reauthentication). */
  readonly userVerified: boolean;
}

function countersOf(guard: LoginGuard, step: PasskeyStep): ThrottleCounter[] {
  if (step.stepUp) return passkeyThrottleCounters(step.ip);
  const account = accountOf(step.email);
  return throttleCounters(account, step.ip, deviceNonce(guard.deviceKey, account, step.deviceCookie));
}

/**
 * Throws {@link LoginThrottled} (before anything is verified), {@link PasskeyRejected} (`other-member`
 * for a valid passkey of someone else; the attempt stays counted) or `AccountDisabled`.
 */
export async function proveSecondStepWithPasskey(db: DB, clock: Clock, guard: LoginGuard, rp: RelyingParty, step: PasskeyStep): Promise<ProvedStep> {
  const counters = countersOf(guard, step);
  const refusal = await reserveAttempt(guard.attempts, clock, counters, { log: step.log, ip: step.ip, userId: step.userId });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  let verified;
  try {
    verified = await verifyPasskeyAssertion(db, clock, rp, { ...step, ownerId: step.userId });
  } catch (error) {
    if (error instanceof PasskeyRejected) {
      logSecurityEvent(step.log, {
        event: 'account.second_factor.failed', userId: step.userId, method: 'passkey', reason: error.reason, passkeyId: error.passkey?.id ?? null, stepUp: step.stepUp, ip: step.ip,
      });
    }
    throw error;
  }
  await recordSuccess(guard.attempts, counters);
  const userVerified = verified.amr.includes('user');
  // At a step-up, a passkey that verified its member is a sign-in by itself: its own methods, as the login
  // page's passkey gives, not a password of another time beside it.
  const amr = step.stepUp && userVerified ? verified.amr : withFactor(step.priorAmr, verified.amr);
  logSecurityEvent(step.log, { event: 'account.second_factor.succeeded', userId: step.userId, method: 'passkey', passkeyId: verified.passkeyId, amr, stepUp: step.stepUp, ip: step.ip });
  return { amr, userVerified };
}
