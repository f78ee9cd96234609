/**
 * The refresh_token grant (RFC 6749 §6, RFC 9700 §4.14.2; SPEC §5.3):
 * rotation on every use, in one statement with the checks; a retry with the
 * just-rotated token inside the grace period gets the same successor (one
 * successor per token, never a second chain); any other use of a retired
 * token revokes the whole family (the grant). A public client's grant not yet
 * bound to a DPoP key is bound to the key of the first refresh that sends a
 * proof (RFC 9449 §5), in the same statement; a retry that adds a proof the
 * rotation it repeats did not have is refused (it would get an unbound
 * successor).
 */
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { scopeNotAllowed } from '../checks/scope.ts';
import { InvalidGrant, InvalidRequest, InvalidScope, UnauthorizedClient } from '../errors.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import { sortScopes, withoutOfflineAccess } from '../scopes.ts';
import { decryptRefreshToken } from '../tokens/refresh-token.ts';
import type { TokenResponse } from '../tokens/token-response.ts';
import type { GrantBase, GrantParameters, TokenRequestProof } from './grant-type.ts';

export const grantType = 'refresh_token';
export const parameters = ['refresh_token', 'scope'] as const;

const INVALID = 'Invalid or expired refresh token';

export interface RefreshTokenRow {
  id: number;
  grant_id: number;
  scopes: string[];
  expires_at: Date;
  rotated_at: Date | null;
  successor_id: number | null;
  successor_rotated_at: Date | null;
  client_id: number;
  user_id: number;
  auth_time: Date;
  /** How the member signed in, kept from the grant's session. */
  amr: string[];
  /** The requested `acr` value met when the grant began, or null. */
  acr: string | null;
  revoked_at: Date | null;
  /** The login session of the grant, kept in the ID tokens of every refresh. */
  sid: string | null;
  /** RFC 9449 §5: the DPoP key the grant's refresh tokens are bound to (a public client's), or null. */
  dpop_jkt: string | null;
}

export interface RefreshTokenUse extends RefreshTokenRow {
  /** Whether the user is in one of the client's required regions (true when it has none). */
  in_regions: boolean;
  /** The successor this use created, or null when it rotated nothing. */
  rotated_to: number | null;
  /** False when the client changed since it was read (client-cache.ts): then nothing was rotated. */
  client_current: boolean;
}

export interface RefreshTokenUseInput {
  rowId: number;
  clientRowId: number;
  clientVersion: number;
  now: Date;
  expiresAt: Date;
  requiredRegions: readonly number[];
  /** The scopes the client may use now: the successor carries only these of the row's. */
  clientScopes: readonly string[];
  /** Scopes the request narrows to, or null for all the row's scopes. */
  requestedScopes: readonly string[] | null;
  /** The request's DPoP key thumbprint: a bound token rotates only with its key. */
  dpopJkt: string | null;
  /**
   * The key an unbound grant is bound to when this use rotates: a public client's proof key (RFC 9449 §5),
   * else null. A grant already bound keeps its key.
   */
  refreshDpopJkt: string | null;
}

/** The storage this grant needs (implemented in grants.repository.ts). */
export interface RefreshTokenStore {
  /**
   * Reads the row, its grant and its successor's state and, when the row is
   * current, bound to this client, live, in the required regions and covering
   * the requested scopes, rotates it and binds an unbound grant to `refreshDpopJkt` — atomically: of two
   * concurrent uses only one rotates, the other sees `rotated_to: null`. Undefined when there is no such row.
   */
  use(input: RefreshTokenUseInput): Promise<RefreshTokenUse | undefined>;
  find(rowId: number): Promise<RefreshTokenRow | undefined>;
  /** Revokes the family: every refresh token and access token of the grant. */
  revokeGrant(grantId: number, now: Date): Promise<void>;
}

export interface RefreshGrantContext extends GrantBase {
  readonly refreshTokens: RefreshTokenStore;
  /** Decrypts the presented token. */
  readonly material: KeyMaterial;
  /** Seconds a just-rotated refresh token may still be presented (SPEC §5.3, config). */
  readonly refreshGraceSeconds: number;
}

export async function handle(
  ctx: RefreshGrantContext, client: ClientRow, params: GrantParameters<(typeof parameters)[number]>, proof: TokenRequestProof = { dpopJkt: undefined },
): Promise<TokenResponse> {
  if (!client.grant_types.includes('refresh_token')) throw new UnauthorizedClient('This client may not use the refresh_token grant.');
  if (params.refresh_token === undefined || params.refresh_token === '') throw new InvalidRequest('refresh_token is required.');
  const now = ctx.clock();
  const payload = decryptRefreshToken(ctx.material, params.refresh_token, now);
  if (!payload) throw invalid('the token does not decrypt with this server\'s key, or its exp has passed');
  if (payload.clientId !== client.client_id) throw invalid('the token was issued to another client');
  const requested = requestedScopes(params.scope);
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const use = await ctx.refreshTokens.use({
      rowId: payload.rowId, clientRowId: client.id, clientVersion: client.version, now, expiresAt, requiredRegions: client.required_regions, clientScopes: client.scopes, requestedScopes: requested,
      dpopJkt: proof.dpopJkt ?? null, refreshDpopJkt: client.confidential ? null : proof.dpopJkt ?? null,
    });
    if (use && !use.client_current) throw new StaleClient();
    if (!use) throw invalid('the token names no stored row (purged after expiry)');
    const outcome = await decide(ctx, client, use, requested, now, expiresAt, proof.dpopJkt);
    if (outcome !== LOST_RACE) return outcome;
  }
  throw invalid('the token was rotated concurrently twice; refused rather than tried again');
}

const LOST_RACE = Symbol('lost race');

/** The answer to one use of a stored token, or {@link LOST_RACE} when a concurrent use rotated it first. */
async function decide(
  ctx: RefreshGrantContext, client: ClientRow, use: RefreshTokenUse, requested: string[] | null, now: Date, expiresAt: Date, dpopJkt: string | undefined,
): Promise<TokenResponse | typeof LOST_RACE> {
  const refusal = refusalOf(use, client, now, dpopJkt);
  if (refusal !== undefined) throw invalid(refusal);
  // The region restriction (SPEC §5.2 step 5) holds for the whole session, not only at sign-in:
  // a member who left every required region gets no new tokens.
  if (!use.in_regions) throw new InvalidGrant('User not in required regions');
  // A scope the operator has taken from the client since is taken from its grants too (the statement
  // rotates only when some scope is left and the request asks for none taken).
  const allowed = use.scopes.filter((s) => client.scopes.includes(s));
  if (allowed.length === 0) throw invalid('the client may use none of the grant\'s scopes any more');
  const withdrawn = (requested ?? []).filter((s) => use.scopes.includes(s) && !allowed.includes(s));
  if (withdrawn.length > 0) throw scopeNotAllowed(withdrawn);
  const scopes = narrowedScopes(allowed, requested);
  const issue = (refresh: { rowId: number; expiresAt: Date }) => respond(ctx, client, use, scopes, now, refresh, dpopJkt);
  if (use.rotated_to !== null) return issue({ rowId: use.rotated_to, expiresAt });
  // Lost a race with a concurrent use of the same token: decide again, as a retry.
  if (use.rotated_at === null) return LOST_RACE;
  if (isRetryInGracePeriod(ctx, use, now)) {
    // RFC 9449 §5: a public client's refresh tokens are bound to the key of its proof. A retry repeats the
    // rotation's request; one that adds a proof the rotation did not have would get the unbound successor
    // beside a bound access token. Refused, nothing revoked: the retry without it, or the successor, still works.
    if (!client.confidential && use.dpop_jkt === null && dpopJkt !== undefined) {
      throw invalid('a retry inside the grace period sent a DPoP proof that the rotation it repeats did not; the grant stays unbound until a refresh with the successor sends one');
    }
    const successor = await ctx.refreshTokens.find(use.successor_id!);
    if (successor && successor.revoked_at === null) return issue({ rowId: successor.id, expiresAt: successor.expires_at });
  }
  await ctx.refreshTokens.revokeGrant(use.grant_id, now);
  throw invalid('a retired token was used again outside the grace period; its family is revoked').withEvent({
    event: 'oauth.refresh_token.family_revoked', clientId: client.client_id, grantId: use.grant_id, userId: use.user_id, tokenId: use.id,
  });
}

/** Why the row cannot be used at all (the operator's detail), or undefined when it may. */
function refusalOf(use: RefreshTokenUse, client: ClientRow, now: Date, dpopJkt: string | undefined): string | undefined {
  if (use.client_id !== client.id) return 'the token\'s grant belongs to another client';
  // RFC 9449 §5: a public client's bound refresh token is used only with a proof of its key (nothing was rotated).
  if (use.dpop_jkt !== null && use.dpop_jkt !== dpopJkt) return dpopJkt === undefined ? 'the token is DPoP-bound and no proof was sent' : 'the token is bound to another DPoP key';
  if (use.revoked_at !== null) return 'the token\'s grant is revoked (reuse, revocation, consent withdrawn, client tokens revoked)';
  if (use.expires_at <= now) return 'the token has expired';
  return undefined;
}

/** A retry: the token was rotated within the grace period and its successor has not been used yet. */
function isRetryInGracePeriod(ctx: RefreshGrantContext, use: RefreshTokenUse, now: Date): boolean {
  return use.rotated_at !== null && use.successor_id !== null && use.successor_rotated_at === null &&
    now.getTime() - use.rotated_at.getTime() <= ctx.refreshGraceSeconds * 1000;
}

function requestedScopes(scopeParam: string | undefined): string[] | null {
  if (scopeParam === undefined || scopeParam.trim() === '') return null;
  const requested = withoutOfflineAccess(scopeParam.split(' ').filter((s) => s !== ''));
  // `offline_access` alone narrows nothing: the grant's scopes, as without a scope.
  return requested.length === 0 ? null : requested;
}

/** RFC 6749 §6: an optional `scope` may only narrow what was granted. */
function narrowedScopes(granted: readonly string[], requested: readonly string[] | null): string[] {
  if (requested === null) return sortScopes(granted);
  if (!requested.every((s) => granted.includes(s))) throw new InvalidScope('The scope may only narrow the original grant.');
  return sortScopes(requested);
}

function respond(
  ctx: RefreshGrantContext, client: ClientRow, row: RefreshTokenRow, scopes: string[], now: Date, refresh: { rowId: number; expiresAt: Date }, dpopJkt: string | undefined,
): Promise<TokenResponse> {
  // A refresh keeps sub, auth_time, amr, acr and sid (OpenID Connect Core §12.2); no nonce. A proof binds the new access token (RFC 9449 §5).
  return ctx.issue({
    clientId: client.client_id, signingAlg: client.id_token_signed_response_alg, userId: row.user_id, grantId: row.grant_id, scopes,
    authTime: row.auth_time, amr: row.amr, acr: row.acr, nonce: null, sid: row.sid, now, refresh, dpopJkt,
  });
}

function invalid(detail: string): InvalidGrant {
  return new InvalidGrant(INVALID).withDetail(detail);
}
