/**
 * Correctness of one sample response per scenario, before it is measured:
 * tokens verify against the server's own JWKS (jose), the ID token carries
 * nonce and at_hash as expected, refresh rotates, userinfo has the claims.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

export class CheckFailed extends Error {}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

export interface Issuer {
  issuer: string;
  jwksUri: string;
  clientId: string;
  /** Our access tokens are JWTs (RFC 9068); the peer's are opaque. */
  accessTokenIsJwt: boolean;
  /** Whether the ID token from the token endpoint must carry at_hash. */
  requireAtHash: boolean;
  /** The access token's `aud` when it is not the client (the peer's resource server). */
  accessTokenAudience?: string;
  /** The signing algorithm of the client's tokens (RS256 unless said). */
  alg?: 'RS256' | 'ES256';
}

const jwksCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function jwks(uri: string) {
  let set = jwksCache.get(uri);
  if (!set) jwksCache.set(uri, set = createRemoteJWKSet(new URL(uri)));
  return set;
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token: string;
  refresh_token?: string;
  scope?: string;
}

function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

async function verify(issuer: Issuer, token: string, what: string, typ?: string, audience = issuer.clientId): Promise<JWTPayload> {
  try {
    const { payload } = await jwtVerify(token, jwks(issuer.jwksUri), {
      issuer: issuer.issuer, audience, algorithms: [issuer.alg ?? 'RS256'], ...(typ ? { typ } : {}),
    });
    return payload;
  } catch (error) {
    throw new CheckFailed(`${what} does not verify against ${issuer.jwksUri}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A token response of the code or refresh grant; returns the ID token's claims. */
export async function checkTokenResponse(
  issuer: Issuer, status: number, text: string,
  expect: { nonce: string; refreshToken: boolean; previousRefreshToken?: string },
): Promise<{ tokens: TokenResponse; idClaims: JWTPayload }> {
  check(status === 200, `token endpoint answered ${status}: ${text.slice(0, 300)}`);
  let tokens: TokenResponse;
  try { tokens = JSON.parse(text) as TokenResponse; } catch { throw new CheckFailed(`token response is not JSON: ${text.slice(0, 200)}`); }
  check(typeof tokens.access_token === 'string' && tokens.access_token.length > 20, 'no access_token in the token response');
  check(/^bearer$/i.test(tokens.token_type), `token_type is ${tokens.token_type}, not Bearer`);
  check(tokens.expires_in > 3000 && tokens.expires_in <= 3600, `expires_in is ${tokens.expires_in}, not 3600`);
  check(typeof tokens.id_token === 'string', 'no id_token in the token response');
  if (issuer.accessTokenIsJwt) {
    const at = await verify(issuer, tokens.access_token, 'the access token', 'at+jwt', issuer.accessTokenAudience);
    check(typeof at.sub === 'string' && typeof at.jti === 'string' && at.client_id === issuer.clientId, 'the access token lacks sub, jti or client_id');
  }
  const idClaims = await verify(issuer, tokens.id_token, 'the ID token');
  // OpenID Connect Core §12.2: after a refresh the nonce may be absent, but if present it is the original one.
  const nonceOptional = expect.previousRefreshToken !== undefined;
  check(idClaims.nonce === expect.nonce || (nonceOptional && idClaims.nonce === undefined),
    `ID token nonce is ${String(idClaims.nonce)}, expected ${expect.nonce}`);
  check(typeof idClaims.sub === 'string' && idClaims.sub !== '', 'ID token without sub');
  if (issuer.requireAtHash || idClaims.at_hash !== undefined) {
    check(idClaims.at_hash === atHash(tokens.access_token), `ID token at_hash ${String(idClaims.at_hash)} does not match the access token`);
  }
  if (expect.refreshToken) {
    check(typeof tokens.refresh_token === 'string' && tokens.refresh_token.length > 20, 'no refresh_token in the token response');
    if (expect.previousRefreshToken !== undefined) {
      check(tokens.refresh_token !== expect.previousRefreshToken, 'the refresh grant returned the same refresh token (no rotation)');
    }
  }
  return { tokens, idClaims };
}

export function checkUserinfo(status: number, text: string, expect: { sub: string; email: string }): void {
  check(status === 200, `userinfo answered ${status}: ${text.slice(0, 300)}`);
  const claims = JSON.parse(text) as Record<string, unknown>;
  check(claims.sub === expect.sub, `userinfo sub is ${String(claims.sub)}, expected ${expect.sub}`);
  check(claims.email === expect.email, `userinfo email is ${String(claims.email)}, expected ${expect.email} (scope email)`);
  check(claims.email_verified === true, 'userinfo email_verified is not true');
  check(typeof claims.name === 'string' && typeof claims.given_name === 'string' && typeof claims.family_name === 'string',
    'userinfo lacks name, given_name or family_name (scope profile)');
}

export function checkDiscovery(status: number, text: string, issuer: string): Record<string, unknown> {
  check(status === 200, `discovery answered ${status}`);
  const doc = JSON.parse(text) as Record<string, unknown>;
  check(doc.issuer === issuer, `discovery issuer is ${String(doc.issuer)}, expected ${issuer}`);
  for (const field of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri']) {
    check(typeof doc[field] === 'string', `discovery lacks ${field}`);
  }
  return doc;
}

export function checkJwks(status: number, text: string): void {
  check(status === 200, `JWKS answered ${status}`);
  const set = JSON.parse(text) as { keys?: Array<Record<string, unknown>> };
  check(Array.isArray(set.keys) && set.keys.some((k) => k.kty === 'RSA' && typeof k.kid === 'string' && (k.alg === undefined || k.alg === 'RS256')),
    'JWKS holds no RS256 key with a kid');
  check(set.keys!.every((k) => k.d === undefined), 'JWKS exposes a private key');
}
