/**
 * The authorization code: issued at the end of the authorization endpoint
 * (SPEC §5.2 step 7) and exchanged at the token endpoint (SPEC §5.3, RFC 6749
 * §4.1.3, RFC 7636 §4.6). Every failure is `invalid_grant` with the seed's
 * message; a second use revokes what the first one issued.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isValidVerifier, s256 } from '../checks/pkce.ts';
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { INVALID_OR_EXPIRED_CODE, InvalidGrant, InvalidRequest } from '../errors.ts';
import { ACCESS_TOKEN_SECONDS, AUTHORIZATION_CODE_SECONDS, REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { issueTokens, type TokenResponse } from '../tokens/token-response.ts';
import { findGrantOfUsedCode, insertCode, insertCodeIfConsented, redeemCode, type NewCode } from './codes.repository.ts';
import { revokeGrant } from './grants.repository.ts';

export function digestCode(code: string): Buffer {
  return createHash('sha256').update(code).digest();
}

export interface CodeBinding {
  clientRowId: number;
  userId: number;
  redirectUri: string;
  scopes: readonly string[];
  codeChallenge: string | null;
  nonce: string | null;
  authTime: Date;
}

/** A fresh single-use code (256 random bits), stored only as its digest. */
export async function issueAuthorizationCode(ctx: OAuthContext, binding: CodeBinding): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await insertCode(ctx.db, newCode(ctx, binding, code));
  return code;
}

/**
 * A fresh code when the user's remembered consent covers the requested scopes
 * (SPEC §5.2 step 6), decided and stored in one statement; undefined when it
 * does not, and then nothing was stored.
 */
export async function issueAuthorizationCodeIfConsented(ctx: OAuthContext, binding: CodeBinding): Promise<string | undefined> {
  const code = randomBytes(32).toString('base64url');
  return (await insertCodeIfConsented(ctx.db, newCode(ctx, binding, code))) ? code : undefined;
}

function newCode(ctx: OAuthContext, binding: CodeBinding, code: string): NewCode {
  return { ...binding, digest: digestCode(code), expiresAt: new Date(ctx.clock().getTime() + AUTHORIZATION_CODE_SECONDS * 1000) };
}

export interface CodeExchange {
  code: string | undefined;
  redirect_uri: string | undefined;
  code_verifier: string | undefined;
}

export async function exchangeAuthorizationCode(ctx: OAuthContext, client: ClientRow, params: CodeExchange): Promise<TokenResponse> {
  if (params.code === undefined || params.code === '') throw new InvalidRequest('code is required.');
  if (params.redirect_uri === undefined) throw new InvalidRequest('redirect_uri is required.');
  const verifier = params.code_verifier;
  if (verifier !== undefined && !isValidVerifier(verifier)) throw new InvalidGrant(INVALID_OR_EXPIRED_CODE);
  if (params.code.length > 200) throw new InvalidGrant(INVALID_OR_EXPIRED_CODE);

  const now = ctx.clock();
  const withRefresh = client.grant_types.includes('refresh_token');
  const refreshExpiresAt = withRefresh ? new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000) : null;
  const digest = digestCode(params.code);
  const { clientCurrent, code: redeemed } = await redeemCode(ctx.db, {
    digest,
    clientRowId: client.id,
    clientVersion: client.version,
    redirectUri: params.redirect_uri,
    challenge: verifier === undefined ? null : s256(verifier),
    now,
    grantExpiresAt: refreshExpiresAt ?? new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
    refreshExpiresAt,
  });
  if (!clientCurrent) throw new StaleClient();
  if (!redeemed) {
    const grantId = await findGrantOfUsedCode(ctx.db, digest);
    if (grantId) await revokeGrant(ctx.db, grantId, now);
    throw new InvalidGrant(INVALID_OR_EXPIRED_CODE);
  }
  return issueTokens(ctx, {
    clientId: client.client_id,
    userId: redeemed.user_id,
    grantId: redeemed.grant_id,
    scopes: redeemed.scopes,
    authTime: redeemed.auth_time,
    nonce: redeemed.nonce,
    now,
    refresh: redeemed.refresh_id === null || refreshExpiresAt === null ? null : { rowId: redeemed.refresh_id, expiresAt: refreshExpiresAt },
  });
}
