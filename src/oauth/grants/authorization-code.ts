/**
 * The authorization_code grant (SPEC §5.3, RFC 6749 §4.1.3, RFC 7636 §4.6):
 * the code is redeemed in one statement together with all its bindings; every
 * failure is `invalid_grant` with the seed's message, and a second use revokes
 * what the first one issued (RFC 6749 §4.1.2).
 */
import { hash } from 'node:crypto';
import type { SecurityEvent } from '../../ops/security-events.ts';
import { isValidVerifier, s256 } from '../checks/pkce.ts';
import { isRegisteredRedirectUri } from '../checks/redirect-uri.ts';
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { INVALID_OR_EXPIRED_CODE, InvalidGrant, InvalidRequest } from '../errors.ts';
import { ACCESS_TOKEN_SECONDS, REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import type { TokenResponse } from '../tokens/token-response.ts';
import type { GrantBase, GrantParameters, TokenRequestProof } from './grant-type.ts';

export const grantType = 'authorization_code';
export const parameters = ['code', 'redirect_uri', 'code_verifier'] as const;

/** Codes are stored only as their SHA-256. */
export function digestCode(code: string): Buffer {
  return hash('sha256', code, 'buffer');
}

export interface Redemption {
  digest: Buffer;
  clientRowId: number;
  /** The version of the client as read (client-cache.ts): redeem nothing if it has changed since. */
  clientVersion: number;
  redirectUri: string;
  /** S256 of the presented verifier, or null when none was presented. */
  challenge: string | null;
  now: Date;
  grantExpiresAt: Date;
  /** Set when the client holds the refresh_token grant. */
  refreshExpiresAt: Date | null;
  /** The request's DPoP key thumbprint: a code bound by `dpop_jkt` is redeemed only with it (RFC 9449 §10). */
  dpopJkt: string | null;
  /** The client's scopes now: the grant carries only these of the code's, and none left redeems nothing. */
  clientScopes: readonly string[];
  /** The client's required regions now: a member in none of them redeems nothing (SPEC §5.2 step 5). */
  requiredRegions: readonly number[];
  /** The key the grant's refresh tokens are bound to: a public client's proof key (RFC 9449 §5), else null. */
  refreshDpopJkt: string | null;
}

export interface RedeemedCode {
  grant_id: number;
  user_id: number;
  scopes: string[];
  auth_time: Date;
  /** How the member signed in (RFC 8176), from the code's session. */
  amr: string[];
  /** The requested `acr` value met, or null. */
  acr: string | null;
  nonce: string | null;
  /** The login session the code was issued under. */
  sid: string | null;
  refresh_id: number | null;
}

/** The storage this grant needs (implemented in codes.repository.ts). */
export interface AuthorizationCodeStore {
  /**
   * In one statement: marks a live code bound to this client, redirect URI and
   * challenge used, creates its grant and first refresh-token row. `code`
   * undefined when none matched; `clientCurrent` false (nothing redeemed) when
   * the client changed since it was read.
   */
  redeem(redemption: Redemption): Promise<{ clientCurrent: boolean; code: RedeemedCode | undefined }>;
  /** The grant issued from an already used code (null if none was issued); undefined when the code is not a used one. */
  findGrantOfUsedCode(digest: Buffer): Promise<number | null | undefined>;
  revokeGrant(grantId: number, now: Date): Promise<void>;
}

export interface CodeGrantContext extends GrantBase {
  readonly codes: AuthorizationCodeStore;
}

export async function handle(
  ctx: CodeGrantContext, client: ClientRow, params: GrantParameters<(typeof parameters)[number]>, proof: TokenRequestProof = { dpopJkt: undefined },
): Promise<TokenResponse> {
  if (params.code === undefined || params.code === '') throw new InvalidRequest('code is required.');
  if (params.redirect_uri === undefined) throw new InvalidRequest('redirect_uri is required.');
  const verifier = params.code_verifier;
  // A malformed verifier matches no code (the empty challenge is no stored one), yet the code is still
  // looked for among the used ones below: any second use revokes what the first issued (RFC 6749 §4.1.2).
  const malformedVerifier = verifier !== undefined && !isValidVerifier(verifier);
  if (params.code.length > 200) throw invalidCode('the code is longer than any code this server issues');

  const now = ctx.clock();
  const withRefresh = client.grant_types.includes('refresh_token');
  const refreshExpiresAt = withRefresh ? new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000) : null;
  const digest = digestCode(params.code);
  // A redirect URI the operator removed since the code was issued gets no tokens: removed, it may be lost
  // or wrong. Nothing is redeemed (the code expires unused), and a used code is still found below.
  const registered = isRegisteredRedirectUri(client.redirect_uris, params.redirect_uri, client);
  const { clientCurrent, code: redeemed } = !registered ? { clientCurrent: true, code: undefined } : await ctx.codes.redeem({
    digest,
    clientRowId: client.id,
    clientVersion: client.version,
    redirectUri: params.redirect_uri,
    challenge: verifier === undefined ? null : malformedVerifier ? '' : s256(verifier),
    now,
    grantExpiresAt: refreshExpiresAt ?? new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
    refreshExpiresAt,
    dpopJkt: proof.dpopJkt ?? null,
    clientScopes: client.scopes,
    requiredRegions: client.required_regions,
    refreshDpopJkt: client.confidential ? null : proof.dpopJkt ?? null,
  });
  if (!clientCurrent) throw new StaleClient();
  if (!redeemed) {
    const grantId = await ctx.codes.findGrantOfUsedCode(digest);
    if (grantId === undefined && !registered) throw invalidCode('the redirect_uri is not (or no longer) registered for the client');
    if (grantId === undefined && malformedVerifier) throw invalidCode('the code_verifier is malformed (RFC 7636 §4.1)');
    if (grantId === undefined) {
      throw invalidCode('no live code matches: unknown, expired, issued under a session that has ended, bound to another client, redirect URI, '
        + 'code challenge or DPoP key, or its member is in none of the client\'s required regions, or the client may use none of its scopes any more');
    }
    if (grantId !== null) await ctx.codes.revokeGrant(grantId, now);
    const event: SecurityEvent = { event: 'oauth.code.reused', clientId: client.client_id, grantId };
    throw invalidCode('the code was already used; the grant it issued is revoked').withEvent(event);
  }
  return ctx.issue({
    clientId: client.client_id,
    signingAlg: client.id_token_signed_response_alg,
    userId: redeemed.user_id,
    grantId: redeemed.grant_id,
    scopes: redeemed.scopes,
    authTime: redeemed.auth_time,
    amr: redeemed.amr,
    acr: redeemed.acr,
    nonce: redeemed.nonce,
    sid: redeemed.sid,
    now,
    refresh: redeemed.refresh_id === null || refreshExpiresAt === null ? null : { rowId: redeemed.refresh_id, expiresAt: refreshExpiresAt },
    dpopJkt: proof.dpopJkt,
  });
}

function invalidCode(detail: string): InvalidGrant {
  return new InvalidGrant(INVALID_OR_EXPIRED_CODE).withDetail(detail);
}
