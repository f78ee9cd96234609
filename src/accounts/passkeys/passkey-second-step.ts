/**
 * A passkey as the second step (`POST /login/second-factor/passkey`): after
 * the password of a login, or at the step-up of a live session. Counted on
 * the account's failed-login counters, as a one-time code at that step is
 * (login-throttle.ts), and clearing them when it verifies: the password's
 * success left them counted until the second factor's. The passkey must be
 * the member's own; the methods are the password's (or the session's) and
 * the passkey's together, so a password and a security key that verifies
 * nobody are two factors (NIST SP 800-63B §4.2.1: a memorized secret and a
 * single-factor cryptographic authenticator).
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { withFactor, type AuthenticationMethod } from '../authentication-methods.ts';
import { deviceNonce } from '../login-device-cookie.ts';
import { accountOf, recordSuccess, reserveAttempt, throttleCounters } from '../login-throttle.ts';
import { LoginThrottled, type LoginGuard } from '../login.service.ts';
import { PasskeyRejected, verifyPasskeyAssertion, type PasskeyAssertion } from './passkey-authentication.ts';
import type { RelyingParty } from './relying-party.ts';

/** A valid passkey, but another member's: it proves nothing of this one. */
export class AnotherMembersPasskey extends Error {
  constructor() {
    super('the passkey is another member\'s');
    this.name = 'AnotherMembersPasskey';
  }
}

export interface PasskeyStep extends PasskeyAssertion {
  /** Whose step it is: the member of the pending login or of the session. */
  readonly userId: number;
  readonly email: string;
  /** The methods already proved: the password's, or the session's at a step-up. */
  readonly priorAmr: readonly string[];
  readonly deviceCookie: string | undefined;
  readonly stepUp: boolean;
}

/**
 * The methods the session gets; throws {@link LoginThrottled} (before anything is verified),
 * {@link PasskeyRejected}, {@link AnotherMembersPasskey} (the attempt stays counted) or `AccountDisabled`.
 */
export async function proveSecondStepWithPasskey(db: DB, clock: Clock, guard: LoginGuard, rp: RelyingParty, step: PasskeyStep): Promise<AuthenticationMethod[]> {
  const account = accountOf(step.email);
  const counters = throttleCounters(account, step.ip, deviceNonce(guard.deviceKey, account, step.deviceCookie));
  const refusal = await reserveAttempt(guard.attempts, clock, counters, { log: step.log, ip: step.ip });
  if (refusal) throw new LoginThrottled(refusal.wait, refusal.lockedBy);
  const failed = (reason: string, passkeyId: number | null) => {
    logSecurityEvent(step.log, { event: 'account.second_factor.failed', userId: step.userId, method: 'passkey', reason, passkeyId, stepUp: step.stepUp, ip: step.ip });
  };
  let verified;
  try {
    verified = await verifyPasskeyAssertion(db, clock, rp, step);
  } catch (error) {
    if (error instanceof PasskeyRejected) failed(error.reason, error.passkey?.id ?? null);
    throw error;
  }
  if (verified.userId !== step.userId) {
    failed('other-member', verified.passkeyId);
    throw new AnotherMembersPasskey();
  }
  await recordSuccess(guard.attempts, counters);
  const amr = withFactor(step.priorAmr, verified.amr);
  logSecurityEvent(step.log, { event: 'account.second_factor.succeeded', userId: step.userId, method: 'passkey', passkeyId: verified.passkeyId, amr, stepUp: step.stepUp, ip: step.ip });
  return amr;
}
