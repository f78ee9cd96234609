/**
 * Which grant a token of ours belongs to, whoever asks: the revocation
 * endpoint (which then checks the caller is the token's client, RFC 7009
 * §2.1) and the operator's `token revoke`. A compact JWE (five segments) is
 * one of our refresh tokens; anything else is tried as an access token, whose
 * `jti` names its grant (access-token.ts).
 */
import type { Executor } from '../../db/executor.ts';
import { findRefreshToken } from '../grants/grants.repository.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { verifyAccessToken } from './access-token.ts';
import { decryptRefreshToken } from './refresh-token.ts';

export interface TokenGrantContext {
  readonly db: Executor;
  readonly keys: Pick<KeyStore, 'verificationKey'>;
  readonly material: KeyMaterial;
  readonly issuer: string;
}

export interface TokenGrant {
  readonly tokenType: 'access_token' | 'refresh_token';
  readonly grantId: number;
  /** The public id of the client the token names. */
  readonly clientId: string;
  /** A refresh token's row names its client's row: a client deleted and added again under the same id is another client. */
  readonly clientRowId?: number;
}

/**
 * The grant, or undefined for a token that is not ours, malformed, expired,
 * or a refresh token whose row is gone. A revoked grant is still named: the
 * caller decides what revoking it again means.
 */
export async function findGrantOfToken(ctx: TokenGrantContext, token: string, now: Date): Promise<TokenGrant | undefined> {
  if (token.split('.').length === 5) {
    const payload = decryptRefreshToken(ctx.material, token, now);
    if (!payload) return undefined;
    const row = await findRefreshToken(ctx.db, payload.rowId);
    return row && { tokenType: 'refresh_token', grantId: row.grant_id, clientId: payload.clientId, clientRowId: row.client_id };
  }
  try {
    const claims = await verifyAccessToken(ctx.keys, ctx.issuer, token, now);
    return { tokenType: 'access_token', grantId: claims.grantId, clientId: claims.clientId };
  } catch {
    return undefined;
  }
}
