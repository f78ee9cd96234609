/**
 * Logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.4): `kid` and
 * `typ: logout+jwt`, signed like the client's ID tokens (§2.4: "the same keys
 * are used … as are used for ID Tokens"; so its `id_token_signed_response_alg`); `iss`, `aud`, `iat`, `exp` (two minutes), `jti`, the back-channel
 * logout member of `events`, `sub` and/or `sid`, and never a `nonce` (§2.4: it
 * would let an attacker pass a logout token off as an ID token).
 */
import { randomUUID } from 'node:crypto';
import type { Signer } from '../keys/key-store.ts';
import { LOGOUT_TOKEN_SECONDS } from '../lifetimes.ts';

/** The member of the `events` claim that makes a JWT a logout token (§2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutTokenClaims {
  /** The client the token is for (`aud`). */
  clientId: string;
  /** The user (`sub`, as in the ID token), or null for a notice about a session only. */
  sub: string | null;
  /** The session (`sid`, as in the ID token), or null for a notice about every session of the user. */
  sid: string | null;
}

/** A fresh logout token; each delivery attempt signs its own, with its own `jti` and `exp`. */
export function signLogoutToken(signer: Signer, issuer: string, nowSeconds: number, claims: LogoutTokenClaims): Promise<string> {
  if (claims.sub === null && claims.sid === null) throw new Error('a logout token names a sub, a sid or both (§2.4)');
  return signer.sign(signer.logoutTokenHeader, {
    iss: issuer,
    ...(claims.sub === null ? {} : { sub: claims.sub }),
    aud: claims.clientId,
    iat: nowSeconds,
    exp: nowSeconds + LOGOUT_TOKEN_SECONDS,
    jti: randomUUID(),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    ...(claims.sid === null ? {} : { sid: claims.sid }),
  });
}
