/**
 * The successful token response (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3):
 * two signatures with the client's algorithm and at most one JWE, nothing else (SPEC §8).
 */
import type { SigningAlg } from '../jose/algorithms.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { ACCESS_TOKEN_SECONDS } from '../lifetimes.ts';
import { signAccessToken } from './access-token.ts';
import { signIdToken } from './id-token.ts';
import { encryptRefreshToken } from './refresh-token.ts';

export interface TokenResponse {
  access_token: string;
  /** RFC 9449 §5: `DPoP` when the access token is bound to a key. */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  id_token?: string;
  refresh_token?: string;
}

export interface IssueInput {
  clientId: string;
  /** The client's `id_token_signed_response_alg`: signs its ID token and its access token. */
  signingAlg: SigningAlg;
  userId: number;
  grantId: number;
  scopes: readonly string[];
  authTime: Date;
  /** How the member signed in (RFC 8176 `amr`): the ID token's `amr` and `acr`. */
  amr: readonly string[];
  /** The requested `acr` value the session met, or null: then the ID token's `acr` is the level `amr` reaches. */
  acr: string | null;
  nonce: string | null;
  /** The login session the grant came from (OpenID Connect `sid`), or null. */
  sid: string | null;
  /** The request's one reading of the clock. */
  now: Date;
  /** Row and expiry of the refresh token to hand out, if any. */
  refresh: { rowId: number; expiresAt: Date } | null;
  /** RFC 9449 §6.1: the DPoP key thumbprint the access token is bound to (`cnf.jkt`); absent: a bearer token. */
  dpopJkt?: string | undefined;
}

export async function issueTokens(ctx: OAuthContext, input: IssueInput): Promise<TokenResponse> {
  const signer = await ctx.keys.signer(input.signingAlg);
  const now = Math.floor(input.now.getTime() / 1000);
  const scope = input.scopes.join(' ');
  const sub = String(input.userId);
  const authTime = Math.floor(input.authTime.getTime() / 1000);
  const refreshToken = input.refresh === null ? undefined
    : encryptRefreshToken(ctx.material, { rowId: input.refresh.rowId, clientId: input.clientId }, now, input.refresh.expiresAt);
  const accessToken = await signAccessToken(signer, ctx.issuer, now, { sub, clientId: input.clientId, scope, authTime, grantId: input.grantId, jkt: input.dpopJkt });
  // The ID token's at_hash covers the signed access token: the two signatures cannot run side by side.
  const id_token = input.scopes.includes('openid')
    ? await signIdToken(signer, ctx.issuer, now, {
      sub, clientId: input.clientId, authTime, amr: input.amr, acr: input.acr, nonce: input.nonce, sid: input.sid, accessToken,
    })
    : undefined;
  return {
    access_token: accessToken,
    token_type: input.dpopJkt === undefined ? 'Bearer' : 'DPoP',
    expires_in: ACCESS_TOKEN_SECONDS,
    scope,
    ...(id_token === undefined ? {} : { id_token }),
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
  };
}
