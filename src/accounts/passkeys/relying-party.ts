/**
 * This server as a WebAuthn Relying Party (WebAuthn §5.1.3, §13.4.9): the RP
 * ID is the host of PUBLIC_URL and the only origin accepted is PUBLIC_URL's
 * own, so a response signed for a look-alike site never verifies here. An
 * RP ID must be a domain: a PUBLIC_URL on a bare IP address has no passkeys
 * (browsers refuse the ceremony).
 */
import type { AuthenticationMethod } from '../authentication-methods.ts';
import type { PasskeyDeviceType } from './passkeys.repository.ts';

export interface RelyingParty {
  /** RP ID: PUBLIC_URL's host name, without port. */
  readonly id: string;
  /** PUBLIC_URL's origin (scheme, host, port). */
  readonly origin: string;
  /** Shown by the authenticator beside the account name. */
  readonly name: string;
}

export function relyingPartyOf(publicUrl: string, name = 'foodsharing'): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name };
}

/**
 * RFC 8176 methods of a sign-in with a passkey (docs/oauth.md, "Authentication
 * methods and levels"): `hwk` for a key bound to one device, `swk` for a
 * synced (multi-device) one; with user verification (a PIN or biometric on
 * the authenticator) also `user` and `mfa` — something held and something
 * known or been.
 */
export function passkeyAmr(deviceType: PasskeyDeviceType, userVerified: boolean): AuthenticationMethod[] {
  const key: AuthenticationMethod = deviceType === 'multiDevice' ? 'swk' : 'hwk';
  return userVerified ? [key, 'user', 'mfa'] : [key];
}
