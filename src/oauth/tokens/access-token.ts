/**
 * JWT access tokens (RFC 9068; SPEC §5.3): signed with the client's algorithm
 * (RS256 unless its `id_token_signed_response_alg` says ES256 or EdDSA),
 * header `typ: at+jwt` and `kid`. `jti` is `<grant id>.<random>`: the grant lets userinfo and
 * revocation check the token against the database in one indexed query.
 */
import { randomBytes } from 'node:crypto';
import { InvalidToken } from '../errors.ts';
import { isMediaType, isValidJwsSignature, parseJws } from '../jose/jws.ts';
import type { KeyStore, Signer } from '../keys/key-store.ts';
import { ACCESS_TOKEN_SECONDS } from '../lifetimes.ts';

export interface AccessTokenClaims {
  /** User id. */
  sub: string;
  clientId: string;
  scope: string;
  authTime: number;
  grantId: number;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to (`cnf.jkt`); undefined for a bearer token. */
  jkt?: string | undefined;
}

export interface VerifiedAccessToken extends AccessTokenClaims {
  exp: number;
  /** Issued at (0 when absent: `iat` is optional in a JWT, though ours always carry it). */
  iat: number;
  jti: string;
}

/** `aud` is the client id: a client's own back end can check that a token was issued to it. */
export function signAccessToken(signer: Signer, issuer: string, nowSeconds: number, claims: AccessTokenClaims): Promise<string> {
  return signer.sign(signer.accessTokenHeader, {
    iss: issuer,
    sub: claims.sub,
    aud: claims.clientId,
    client_id: claims.clientId,
    scope: claims.scope,
    auth_time: claims.authTime,
    iat: nowSeconds,
    exp: nowSeconds + ACCESS_TOKEN_SECONDS,
    jti: `${claims.grantId}.${randomBytes(12).toString('base64url')}`,
    ...(claims.jkt === undefined ? {} : { cnf: { jkt: claims.jkt } }),
  });
}

/**
 * Verifies signature, `alg`, `typ`, `iss` and `exp` (SPEC §5.4, RFC 9068 §4);
 * the caller checks the grant. Throws {@link InvalidToken}.
 */
export async function verifyAccessToken(keys: Pick<KeyStore, 'verificationKey'>, issuer: string, token: string, now: Date): Promise<VerifiedAccessToken> {
  const jws = token.length > 8192 ? undefined : parseJws(token);
  if (!jws) throw new InvalidToken('The access token is malformed.');
  const { header, payload } = jws;
  const key = await keys.verificationKey(typeof header.kid === 'string' ? header.kid : undefined);
  if (!key) throw new InvalidToken('The access token was not signed by a key of this server.');
  // RFC 8725 §3.1: the algorithm is the key's (its type), never the token's to choose; no extension is understood (RFC 7515 §4.1.11).
  if (header.crit !== undefined || !isMediaType(header.typ, 'at+jwt') || !isValidJwsSignature(jws, key)) {
    throw new InvalidToken('The access token is invalid.');
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof payload.exp !== 'number' || !hasValidTimes(payload, nowSeconds) || payload.iss !== issuer || typeof payload.sub !== 'string'
    || typeof payload.jti !== 'string' || typeof payload.scope !== 'string' || typeof payload.client_id !== 'string') {
    throw new InvalidToken('The access token is invalid.');
  }
  if (payload.exp <= nowSeconds) throw new InvalidToken('The access token has expired.');
  const cnf = payload.cnf as { jkt?: unknown } | undefined;
  if (cnf !== undefined && (typeof cnf !== 'object' || cnf === null || typeof cnf.jkt !== 'string')) throw new InvalidToken('The access token is invalid.');
  const grantId = Number(payload.jti.split('.')[0]);
  if (!Number.isSafeInteger(grantId) || grantId <= 0) throw new InvalidToken('The access token is not one of this server.');
  return {
    sub: payload.sub, clientId: payload.client_id, scope: payload.scope, grantId,
    authTime: Number(payload.auth_time), exp: payload.exp, iat: typeof payload.iat === 'number' ? payload.iat : 0, jti: payload.jti,
    jkt: cnf?.jkt as string | undefined,
  };
}

/** RFC 7519 §4.1.5–4.1.6: `nbf` and `iat`, when present, are numbers, and `nbf` has passed. */
function hasValidTimes(payload: Record<string, unknown>, nowSeconds: number): boolean {
  if (payload.iat !== undefined && typeof payload.iat !== 'number') return false;
  if (payload.nbf === undefined) return true;
  return typeof payload.nbf === 'number' && payload.nbf <= nowSeconds;
}
