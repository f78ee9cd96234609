/**
 * The refresh-token grant (RFC 6749 §6, RFC 9700 §4.14; SPEC §5.3): rotation
 * on every use; a retry with the just-rotated token inside the grace period
 * gets a valid answer (naming the successor) instead of killing the session;
 * any later reuse revokes the whole family (the grant).
 */
import { isInRequiredRegions } from '../checks/required-regions.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../errors.ts';
import { REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { decryptRefreshToken } from '../tokens/refresh-token.ts';
import { issueTokens, type TokenResponse } from '../tokens/token-response.ts';
import { sortScopes } from '../scopes.ts';
import { findRefreshToken, revokeGrant, rotateRefreshToken, type RefreshTokenRow } from './grants.repository.ts';

export interface RefreshExchange {
  refresh_token: string | undefined;
  scope: string | undefined;
}

export async function exchangeRefreshToken(ctx: OAuthContext, client: ClientRow, params: RefreshExchange): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) throw new UnauthorizedClient('This client may not use the refresh_token grant.');
  if (params.refresh_token === undefined || params.refresh_token === '') throw new InvalidRequest('refresh_token is required.');
  const now = ctx.clock();
  const payload = decryptRefreshToken(ctx.material, params.refresh_token, now);
  if (!payload || payload.clientId !== client.client_id) throw new InvalidGrant('Invalid or expired refresh token');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const row = await findRefreshToken(ctx.db, payload.rowId);
    if (!row || row.client_id !== client.id || row.revoked_at !== null || row.expires_at <= now) {
      throw new InvalidGrant('Invalid or expired refresh token');
    }
    // The region restriction (SPEC §5.2 step 5) holds for the whole session, not only at sign-in:
    // a member who left every required region gets no new tokens.
    if (!(await isInRequiredRegions(ctx.db, row.user_id, client.required_regions))) throw new InvalidGrant('User not in required regions');
    const scopes = narrowedScopes(row.scopes, params.scope);
    if (row.rotated_at === null) {
      const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
      const successor = await rotateRefreshToken(ctx.db, row.id, row.scopes, now, expiresAt);
      // Lost a race with a concurrent use of the same token: decide again as a retry.
      if (successor === undefined) continue;
      return respond(ctx, client, row, scopes, now, { rowId: successor, expiresAt });
    }
    if (isRetryInGracePeriod(ctx, row, now)) {
      const successor = await findRefreshToken(ctx.db, row.successor_id!);
      if (successor && successor.revoked_at === null) return respond(ctx, client, row, scopes, now, { rowId: successor.id, expiresAt: successor.expires_at });
    }
    await revokeGrant(ctx.db, row.grant_id, now);
    throw new InvalidGrant('Invalid or expired refresh token');
  }
  throw new InvalidGrant('Invalid or expired refresh token');
}

function isRetryInGracePeriod(ctx: OAuthContext, row: RefreshTokenRow, now: Date): boolean {
  return row.rotated_at !== null && row.successor_id !== null && row.successor_rotated_at === null &&
    now.getTime() - row.rotated_at.getTime() <= ctx.refreshGraceSeconds * 1000;
}

/** RFC 6749 §6: an optional `scope` may only narrow what was granted. */
function narrowedScopes(granted: readonly string[], scopeParam: string | undefined): string[] {
  if (scopeParam === undefined || scopeParam.trim() === '') return sortScopes(granted);
  const requested = scopeParam.split(' ').filter((s) => s !== '');
  if (!requested.every((s) => granted.includes(s))) throw new InvalidScope('The scope may only narrow the original grant.');
  return sortScopes(requested);
}

function respond(ctx: OAuthContext, client: ClientRow, row: RefreshTokenRow, scopes: string[], now: Date, refresh: { rowId: number; expiresAt: Date }): Promise<TokenResponse> {
  // A refresh keeps sub and auth_time (OpenID Connect Core §12.2); no nonce.
  return issueTokens(ctx, { clientId: client.client_id, userId: row.user_id, grantId: row.grant_id, scopes, authTime: row.auth_time, nonce: null, now, refresh });
}
