/**
 * Signing in with a passkey (WebAuthn §7.2, with @simplewebauthn/server).
 * The options name no credential (discoverable credentials: the
 * authenticator offers the member's own), so the page needs no email first
 * and says nothing of which accounts exist. The response is verified against
 * a challenge of this browser, PUBLIC_URL's origin and RP ID, the stored
 * public key and the member's user handle; a signature counter that did not
 * move forward (§6.1.1: a sign of a cloned authenticator) is refused and
 * reported. Every refusal throws the same {@link PasskeyRejected} to the
 * caller, so that the answer never tells an unknown credential from a bad
 * signature; the reason goes to the security event. A disabled member is
 * told so once the assertion verified, as the password login tells them
 * after the right password; a deleted member's passkey is an unknown
 * credential.
 */
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent, type EventLog } from '../../ops/security-events.ts';
import type { AuthenticationMethod } from '../authentication-methods.ts';
import { AccountDisabled } from '../login.service.ts';
import { CHALLENGE_SECONDS, consumeChallenge, issueChallenge } from './challenges.ts';
import { madeInCrossOriginFrame } from './client-data.ts';
import { findPasskeyByCredentialId, findUserHandle, recordPasskeyUse, type PasskeyRow } from './passkeys.repository.ts';
import { passkeyAmr, type RelyingParty } from './relying-party.ts';
import { loadWebAuthnServer } from './webauthn-library.ts';

/** Why a passkey was refused; `other-member`: a valid passkey, but not of the member whose second step it was. */
export type PasskeyRejection = 'unknown-credential' | 'invalid-response' | 'signature' | 'user-handle' | 'backup-eligibility' | 'counter' | 'other-member';

/** The sign-in did not verify; `reason` is for the log only. */
export class PasskeyRejected extends Error {
  constructor(readonly reason: PasskeyRejection, readonly passkey?: PasskeyRow) {
    super(`passkey sign-in refused: ${reason}`);
    this.name = 'PasskeyRejected';
  }
}

/** `navigator.credentials.get()` options with a fresh challenge bound to `boundTo` (the login form's CSRF token). */
export async function passkeyAuthenticationOptions(db: DB, clock: Clock, rp: RelyingParty, boundTo: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = await issueChallenge(db, clock, { purpose: 'authentication', boundTo });
  const { generateAuthenticationOptions } = await loadWebAuthnServer();
  return generateAuthenticationOptions({
    rpID: rp.id, allowCredentials: [], userVerification: 'preferred', timeout: CHALLENGE_SECONDS * 1000,
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
  });
}

export interface PasskeyAssertion {
  readonly response: AuthenticationResponseJSON;
  /** What the challenge was bound to. */
  readonly boundTo: string;
  readonly log: EventLog;
  readonly ip: string;
  /**
   * The member whose passkey it must be (a second step): another's is refused right after its signature
   * verified, before anything is written for it or said of its owner.
   */
  readonly ownerId?: number;
}

export interface VerifiedPasskey {
  readonly userId: number;
  readonly passkeyId: number;
  readonly amr: AuthenticationMethod[];
}

/**
 * Verifies a sign-in's assertion and records the passkey's use; throws
 * {@link PasskeyRejected}, or {@link AccountDisabled} for a valid assertion
 * of a disabled member.
 */
export async function verifyPasskeyAssertion(db: DB, clock: Clock, rp: RelyingParty, assertion: PasskeyAssertion): Promise<VerifiedPasskey> {
  const { response } = assertion;
  const passkey = /^[A-Za-z0-9_-]{1,1400}$/.test(response.id) ? await findPasskeyByCredentialId(db, response.id) : undefined;
  if (!passkey) throw new PasskeyRejected('unknown-credential');
  if (madeInCrossOriginFrame(response.response.clientDataJSON)) throw new PasskeyRejected('invalid-response', passkey);
  const { verifyAuthenticationResponse } = await loadWebAuthnServer();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: (challenge) => consumeChallenge(db, clock, challenge, { purpose: 'authentication', boundTo: assertion.boundTo }),
    expectedOrigin: rp.origin, expectedRPID: rp.id,
    // The library's own counter rule runs before the signature is checked: it is applied below, after.
    credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: 0, transports: passkey.transports as never },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!verification) throw new PasskeyRejected('invalid-response', passkey);
  if (!verification.verified) throw new PasskeyRejected('signature', passkey);
  // WebAuthn §7.2 step 6: the user handle, when the authenticator returns one, must be the owner's; a sign-in
  // that named nobody before the ceremony (no `allowCredentials`) must get one.
  const userHandle = response.response.userHandle;
  if (userHandle === undefined ? assertion.ownerId === undefined : userHandle !== (await findUserHandle(db, passkey.userId))) {
    throw new PasskeyRejected('user-handle', passkey);
  }
  if (assertion.ownerId !== undefined && passkey.userId !== assertion.ownerId) throw new PasskeyRejected('other-member', passkey);
  const { newCounter, userVerified, credentialBackedUp, credentialDeviceType } = verification.authenticationInfo;
  // WebAuthn §7.2 step 18: backup eligibility (BE) never changes for a credential; a change means another authenticator.
  if (credentialDeviceType !== passkey.deviceType) throw new PasskeyRejected('backup-eligibility', passkey);
  // WebAuthn §7.2 step 22: a counter not above the stored one (unless both are 0) may mean a cloned authenticator.
  const regressed = (newCounter > 0 || passkey.signCount > 0) && newCounter <= passkey.signCount;
  if (regressed) throw counterRegressed(assertion, passkey, newCounter);
  // Said only to whoever holds the passkey, as the password login says it only
  // after the right password (login.service.ts). Not recorded as a use.
  if (passkey.ownerDisabled) {
    logSecurityEvent(assertion.log, { event: 'account.login.disabled', userId: passkey.userId, passkeyId: passkey.id, ip: assertion.ip });
    throw new AccountDisabled();
  }
  const use = await recordPasskeyUse(db, passkey.id, { signCount: newCounter, backedUp: credentialBackedUp }, clock());
  if (use === 'gone') throw new PasskeyRejected('unknown-credential', passkey);
  if (use === 'regressed') throw counterRegressed(assertion, passkey, newCounter);
  return { userId: passkey.userId, passkeyId: passkey.id, amr: passkeyAmr(passkey.deviceType, userVerified) };
}

function counterRegressed(assertion: PasskeyAssertion, passkey: PasskeyRow, presentedCount: number): PasskeyRejected {
  logSecurityEvent(assertion.log, {
    event: 'account.passkey.counter_regressed', userId: passkey.userId, passkeyId: passkey.id, storedCount: passkey.signCount, presentedCount, ip: assertion.ip,
  });
  return new PasskeyRejected('counter', passkey);
}
