/**
 * Token introspection (RFC 7662 §2.2): what the server knows of a token,
 * asked by an authenticated confidential client. An inactive token answers
 * `{"active": false}` and nothing else, whatever made it inactive (expired,
 * revoked, rotated, malformed, not ours, or a refresh token of another
 * client): §2.2 "SHOULD NOT include any additional information".
 *
 * Access tokens may be introspected by any confidential client: a resource
 * server is a client of its own. Refresh tokens only by the client they were
 * issued to (they are worthless to anyone else, and §4 lets the server limit
 * what a client may learn). Revocation, a logout and a rotation are seen at
 * once: the answer comes from the grant's row, not from the token alone.
 */
import type { Executor } from '../../db/executor.ts';
import { findClientRow, type ClientRow } from '../clients/clients.repository.ts';
import { findRefreshToken } from '../grants/grants.repository.ts';
import { findLiveGrant } from '../grants/live-grant.repository.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { verifyAccessToken } from './access-token.ts';
import { decryptRefreshToken } from './refresh-token.ts';

export type Introspection =
  | { active: false }
  | {
    active: true;
    scope: string;
    client_id: string;
    sub: string;
    exp: number;
    iat: number;
    iss: string;
    aud: string;
    /** RFC 6749 §5.1's type: access tokens only (a refresh token has none, as in oidc-provider); `DPoP` when bound (RFC 9449 §6.2). */
    token_type?: 'Bearer' | 'DPoP';
    jti: string;
    /** RFC 9449 §6.2: the DPoP key a bound token is bound to. */
    cnf?: { jkt: string };
  };

export interface IntrospectionContext {
  readonly db: Executor;
  readonly keys: Pick<KeyStore, 'verificationKey'>;
  readonly material: KeyMaterial;
  readonly issuer: string;
}

const INACTIVE = Object.freeze({ active: false as const });

/** A compact JWE (five segments) is one of our refresh tokens; anything else is tried as an access token. */
export async function introspectToken(ctx: IntrospectionContext, caller: ClientRow, token: string, now: Date): Promise<Introspection> {
  return token.split('.').length === 5 ? introspectRefreshToken(ctx, caller, token, now) : introspectAccessToken(ctx, token, now);
}

/**
 * The operator's view (CLI `token introspect`): there is no caller, so a
 * refresh token is introspected as the client it was issued to would see it.
 */
export async function introspectTokenAsOperator(ctx: IntrospectionContext, token: string, now: Date): Promise<Introspection> {
  if (token.split('.').length !== 5) return introspectAccessToken(ctx, token, now);
  const payload = decryptRefreshToken(ctx.material, token, now);
  const client = payload && await findClientRow(ctx.db, payload.clientId);
  return client ? introspectRefreshToken(ctx, client, token, now) : INACTIVE;
}

async function introspectAccessToken(ctx: IntrospectionContext, token: string, now: Date): Promise<Introspection> {
  let claims: Awaited<ReturnType<typeof verifyAccessToken>>;
  try {
    claims = await verifyAccessToken(ctx.keys, ctx.issuer, token, now);
  } catch {
    return INACTIVE;
  }
  const grant = await findLiveGrant(ctx.db, claims.grantId, now);
  const scopes = claims.scope.split(' ');
  // A token that disagrees with its grant (client, user, a wider scope) is not one the grant stands behind.
  if (!grant || grant.client_id !== claims.clientId || String(grant.user_id) !== claims.sub
    || !scopes.every((scope) => grant.scopes.includes(scope))) {
    return INACTIVE;
  }
  return {
    active: true, scope: claims.scope, client_id: claims.clientId, sub: claims.sub, exp: claims.exp, iat: claims.iat,
    iss: ctx.issuer, aud: claims.clientId, token_type: claims.jkt === undefined ? 'Bearer' : 'DPoP', jti: claims.jti,
    ...(claims.jkt === undefined ? {} : { cnf: { jkt: claims.jkt } }),
  };
}

async function introspectRefreshToken(ctx: IntrospectionContext, caller: ClientRow, token: string, now: Date): Promise<Introspection> {
  const payload = decryptRefreshToken(ctx.material, token, now);
  if (!payload || payload.clientId !== caller.client_id) return INACTIVE;
  const row = await findRefreshToken(ctx.db, payload.rowId);
  // A rotated token is retired: its successor is the live one (a retry within the grace period still gets that successor).
  if (!row || row.client_id !== caller.id || row.revoked_at !== null || row.rotated_at !== null || row.expires_at <= now) return INACTIVE;
  return {
    active: true, scope: row.scopes.join(' '), client_id: caller.client_id, sub: String(row.user_id), exp: payload.exp, iat: payload.iat,
    iss: ctx.issuer, aud: caller.client_id, jti: `rt.${row.id}`,
    ...(row.dpop_jkt === null ? {} : { cnf: { jkt: row.dpop_jkt } }),
  };
}
