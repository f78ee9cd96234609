/**
 * JWT access tokens (RFC 9068; SPEC §5.3): RS256, header `typ: at+jwt` and
 * `kid`. `jti` is `<grant id>.<random>`: the grant lets userinfo and
 * revocation check the token against the database in one indexed query.
 */
import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, decodeProtectedHeader } from 'jose';
import { InvalidToken } from '../errors.ts';
import type { KeyStore, Signer } from '../keys/key-store.ts';
import { ACCESS_TOKEN_SECONDS } from '../lifetimes.ts';

export interface AccessTokenClaims {
  /** User id. */
  sub: string;
  clientId: string;
  scope: string;
  authTime: number;
  grantId: number;
}

export interface VerifiedAccessToken extends AccessTokenClaims {
  exp: number;
}

/** `aud` is the client id: a client's own back end can check that a token was issued to it. */
export function signAccessToken(signer: Signer, issuer: string, nowSeconds: number, claims: AccessTokenClaims): Promise<string> {
  return new SignJWT({ client_id: claims.clientId, scope: claims.scope, auth_time: claims.authTime })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signer.kid })
    .setIssuer(issuer)
    .setSubject(claims.sub)
    .setAudience(claims.clientId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ACCESS_TOKEN_SECONDS)
    .setJti(`${claims.grantId}.${randomBytes(12).toString('base64url')}`)
    .sign(signer.privateKey);
}

/**
 * Verifies signature, `alg`, `typ`, `iss` and `exp` (SPEC §5.4); the caller
 * checks the grant. Throws {@link InvalidToken}.
 */
export async function verifyAccessToken(keys: KeyStore, issuer: string, token: string, now: Date): Promise<VerifiedAccessToken> {
  if (token.length > 8192 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) {
    throw new InvalidToken('The access token is malformed.');
  }
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidToken('The access token is malformed.');
  }
  const key = await keys.verificationKey(kid);
  if (!key) throw new InvalidToken('The access token was not signed by a key of this server.');
  try {
    const { payload } = await jwtVerify(token, key, { issuer, algorithms: ['RS256'], typ: 'at+jwt', currentDate: now, requiredClaims: ['sub', 'exp', 'jti', 'client_id', 'scope'] });
    const grantId = Number(String(payload.jti).split('.')[0]);
    if (!Number.isSafeInteger(grantId) || grantId <= 0 || typeof payload.scope !== 'string' || typeof payload.client_id !== 'string') {
      throw new InvalidToken('The access token is not one of this server.');
    }
    return {
      sub: payload.sub!, clientId: payload.client_id, scope: payload.scope, grantId,
      authTime: Number(payload.auth_time), exp: payload.exp!,
    };
  } catch (error) {
    if (error instanceof InvalidToken) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new InvalidToken('The access token has expired.');
    throw new InvalidToken('The access token is invalid.');
  }
}
