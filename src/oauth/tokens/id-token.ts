/**
 * ID tokens (OpenID Connect Core §2, §3.1.3.6; SPEC §5.3): the client's
 * `id_token_signed_response_alg` (RS256, ES256 or EdDSA) with `kid`,
 * `auth_time` always, `nonce` only when the authorization request sent one,
 * `at_hash` of the access token issued with it, `sid` of the login session,
 * `amr` (RFC 8176) and `acr` of how the member signed in.
 */
import { hash } from 'node:crypto';
import { acrOf, statedAmr } from '../../accounts/authentication-methods.ts';
import type { SigningAlg } from '../jose/algorithms.ts';
import type { Signer } from '../keys/key-store.ts';
import { ID_TOKEN_SECONDS } from '../lifetimes.ts';

export interface IdTokenClaims {
  sub: string;
  clientId: string;
  authTime: number;
  /** RFC 8176 authentication method references of the session. */
  amr: readonly string[];
  /** OpenID Connect Core §2: the requested `acr` value met; undefined or null: the level `amr` reaches. */
  acr?: string | null;
  nonce: string | null;
  /** The login session (Back-Channel Logout 1.0 §2.1, RP-Initiated Logout 1.0 §2), or null when unknown. */
  sid: string | null;
  accessToken: string;
}

/**
 * OIDC Core §3.1.3.6: the hash of the ID token's `alg` (RS256 and ES256:
 * SHA-256; EdDSA with Ed25519: SHA-512, as in oauth4webapi's `idTokenHash`,
 * go-oidc and node-oidc-provider).
 */
const HASH_OF_ALG: Readonly<Record<SigningAlg, string>> = { RS256: 'sha256', ES256: 'sha256', EdDSA: 'sha512' };

/** `at_hash`: the left half of that hash of the access token's ASCII, base64url. */
export function atHash(alg: SigningAlg, accessToken: string): string {
  // A JWT is ASCII: its UTF-8 is its ASCII.
  const digest = hash(HASH_OF_ALG[alg], accessToken, 'buffer');
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export function signIdToken(signer: Signer, issuer: string, nowSeconds: number, claims: IdTokenClaims): Promise<string> {
  return signer.sign(signer.idTokenHeader, {
    iss: issuer,
    sub: claims.sub,
    aud: claims.clientId,
    iat: nowSeconds,
    exp: nowSeconds + ID_TOKEN_SECONDS,
    auth_time: claims.authTime,
    amr: statedAmr(claims.amr),
    acr: claims.acr ?? acrOf(claims.amr),
    ...(claims.nonce === null ? {} : { nonce: claims.nonce }),
    at_hash: atHash(signer.alg, claims.accessToken),
    ...(claims.sid === null ? {} : { sid: claims.sid }),
  });
}
