/**
 * The refresh-token grant (RFC 6749 §6, RFC 9700 §4.14.2; SPEC §5.3):
 * rotation on every use, in one statement with the checks; a retry with the
 * just-rotated token inside the grace period gets the same successor (one
 * successor per token, never a second chain); any other use of a retired
 * token revokes the whole family (the grant).
 */
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../errors.ts';
import { REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { decryptRefreshToken } from '../tokens/refresh-token.ts';
import { issueTokens, type TokenResponse } from '../tokens/token-response.ts';
import { sortScopes } from '../scopes.ts';
import { findRefreshToken, revokeGrant, useRefreshToken, type RefreshTokenRow, type RefreshTokenUse } from './grants.repository.ts';

const INVALID = 'Invalid or expired refresh token';

export interface RefreshExchange {
  refresh_token: string | undefined;
  scope: string | undefined;
}

export async function exchangeRefreshToken(ctx: OAuthContext, client: ClientRow, params: RefreshExchange): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) throw new UnauthorizedClient('This client may not use the refresh_token grant.');
  if (params.refresh_token === undefined || params.refresh_token === '') throw new InvalidRequest('refresh_token is required.');
  const now = ctx.clock();
  const payload = decryptRefreshToken(ctx.material, params.refresh_token, now);
  if (!payload || payload.clientId !== client.client_id) throw new InvalidGrant(INVALID);
  const requested = requestedScopes(params.scope);
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const use = await useRefreshToken(ctx.db, {
      rowId: payload.rowId, clientRowId: client.id, clientVersion: client.version, now, expiresAt, requiredRegions: client.required_regions, requestedScopes: requested,
    });
    if (use && !use.client_current) throw new StaleClient();
    if (!use || use.client_id !== client.id || use.revoked_at !== null || use.expires_at <= now) throw new InvalidGrant(INVALID);
    // The region restriction (SPEC §5.2 step 5) holds for the whole session, not only at sign-in:
    // a member who left every required region gets no new tokens.
    if (!use.in_regions) throw new InvalidGrant('User not in required regions');
    const scopes = narrowedScopes(use.scopes, requested);
    if (use.rotated_to !== null) return respond(ctx, client, use, scopes, now, { rowId: use.rotated_to, expiresAt });
    // Lost a race with a concurrent use of the same token: decide again, as a retry.
    if (use.rotated_at === null) continue;
    if (isRetryInGracePeriod(ctx, use, now)) {
      const successor = await findRefreshToken(ctx.db, use.successor_id!);
      if (successor && successor.revoked_at === null) return respond(ctx, client, use, scopes, now, { rowId: successor.id, expiresAt: successor.expires_at });
    }
    await revokeGrant(ctx.db, use.grant_id, now);
    throw new InvalidGrant(INVALID);
  }
  throw new InvalidGrant(INVALID);
}

/** A retry: the token was rotated within the grace period and its successor has not been used yet. */
function isRetryInGracePeriod(ctx: OAuthContext, use: RefreshTokenUse, now: Date): boolean {
  return use.rotated_at !== null && use.successor_id !== null && use.successor_rotated_at === null &&
    now.getTime() - use.rotated_at.getTime() <= ctx.refreshGraceSeconds * 1000;
}

function requestedScopes(scopeParam: string | undefined): string[] | null {
  if (scopeParam === undefined || scopeParam.trim() === '') return null;
  return scopeParam.split(' ').filter((s) => s !== '');
}

/** RFC 6749 §6: an optional `scope` may only narrow what was granted. */
function narrowedScopes(granted: readonly string[], requested: readonly string[] | null): string[] {
  if (requested === null) return sortScopes(granted);
  if (!requested.every((s) => granted.includes(s))) throw new InvalidScope('The scope may only narrow the original grant.');
  return sortScopes(requested);
}

function respond(ctx: OAuthContext, client: ClientRow, row: RefreshTokenRow, scopes: string[], now: Date, refresh: { rowId: number; expiresAt: Date }): Promise<TokenResponse> {
  // A refresh keeps sub and auth_time (OpenID Connect Core §12.2); no nonce.
  return issueTokens(ctx, { clientId: client.client_id, userId: row.user_id, grantId: row.grant_id, scopes, authTime: row.auth_time, nonce: null, now, refresh });
}
