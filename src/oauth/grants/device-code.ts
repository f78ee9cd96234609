/**
 * The device_code grant (RFC 8628 §3.4, §3.5): the device polls with its
 * device code. Until the member decides, `authorization_pending` (or
 * `slow_down` when it polls too often); then `access_denied`, or once the
 * tokens, issued as for an authorization code (ID token with the approving
 * session's `auth_time` and `sid`, a refresh token when the client holds that
 * grant). A second poll after success is `invalid_grant`; after expiry,
 * `expired_token`. A pending poll writes only when it came (the pace, kept on
 * the code's row for every instance alike); the other refusals write nothing.
 */
import { StaleClient } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { deviceCodeDigest, DEVICE_CODE_GRANT_TYPE } from '../device-authorization/device-code.ts';
import type { DeviceRedemption, PolledDeviceCode, RedeemedDeviceCode } from '../device-authorization/device-codes.repository.ts';
import { AccessDenied, AuthorizationPending, ExpiredToken, InvalidGrant, InvalidRequest, SlowDown, UnauthorizedClient } from '../errors.ts';
import { ACCESS_TOKEN_SECONDS, REFRESH_TOKEN_SECONDS } from '../lifetimes.ts';
import type { TokenResponse } from '../tokens/token-response.ts';
import type { GrantBase, GrantParameters, TokenRequestProof } from './grant-type.ts';

export const grantType = DEVICE_CODE_GRANT_TYPE;
export const parameters = ['device_code'] as const;

/** The storage this grant needs (device-codes.repository.ts), the polling pace among it. */
export interface DeviceCodeStore {
  find(digest: Buffer, clientRowId: number): Promise<PolledDeviceCode | undefined>;
  redeem(redemption: DeviceRedemption): Promise<{ clientCurrent: boolean; code: RedeemedDeviceCode | undefined }>;
  /** Notes a poll of a pending code; true when it came sooner than the interval (which then grows). */
  isTooSoon(digest: Buffer, now: Date): Promise<boolean>;
}

export interface DeviceCodeGrantContext extends GrantBase {
  readonly deviceCodes: DeviceCodeStore;
}

const INVALID_DEVICE_CODE = 'Invalid or expired device code';

export async function handle(
  ctx: DeviceCodeGrantContext, client: ClientRow, params: GrantParameters<(typeof parameters)[number]>, proof: TokenRequestProof = { dpopJkt: undefined },
): Promise<TokenResponse> {
  if (params.device_code === undefined || params.device_code === '') throw new InvalidRequest('device_code is required.');
  // RFC 8628 §3.4 with RFC 6749 §5.2: a client not registered for the grant.
  if (!client.grant_types.includes(grantType)) throw new UnauthorizedClient('The client is not allowed to use the device authorization grant.');
  const digest = deviceCodeDigest(params.device_code);
  if (!digest) throw new InvalidGrant(INVALID_DEVICE_CODE).withDetail('the device code is not of the shape this server issues');

  const now = ctx.clock();
  const polled = await ctx.deviceCodes.find(digest, client.id);
  if (!polled) throw new InvalidGrant(INVALID_DEVICE_CODE).withDetail('no device code of this client matches');
  if (polled.status === 'used') throw new InvalidGrant(INVALID_DEVICE_CODE).withDetail('the device code was redeemed already');
  if (polled.expires_at <= now) throw new ExpiredToken('The device code has expired. Start again.');
  if (polled.status === 'denied') throw new AccessDenied('The user denied the request.');
  if (polled.status === 'pending') {
    if (await ctx.deviceCodes.isTooSoon(digest, now)) throw new SlowDown('Polling too often: wait 5 seconds longer between requests.');
    throw new AuthorizationPending('The user has not answered yet.');
  }
  return redeem(ctx, client, digest, now, proof.dpopJkt);
}

/** A DPoP proof binds the access token, and a public client's refresh tokens, to its key (RFC 9449 §5), as for a code. */
async function redeem(ctx: DeviceCodeGrantContext, client: ClientRow, digest: Buffer, now: Date, dpopJkt: string | undefined): Promise<TokenResponse> {
  const withRefresh = client.grant_types.includes('refresh_token');
  const refreshExpiresAt = withRefresh ? new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000) : null;
  const { clientCurrent, code } = await ctx.deviceCodes.redeem({
    digest, clientRowId: client.id, clientVersion: client.version, now,
    grantExpiresAt: refreshExpiresAt ?? new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000), refreshExpiresAt,
    refreshDpopJkt: client.confidential ? null : dpopJkt ?? null,
    clientScopes: client.scopes, requiredRegions: client.required_regions,
  });
  if (!clientCurrent) throw new StaleClient();
  if (!code) {
    throw new InvalidGrant(INVALID_DEVICE_CODE)
      .withDetail('the approved device code was redeemed concurrently, the session that approved it has ended, its member is in none of the '
        + 'client\'s required regions, or the client may use none of its scopes any more');
  }
  return ctx.issue({
    clientId: client.client_id,
    signingAlg: client.id_token_signed_response_alg,
    userId: code.user_id,
    grantId: code.grant_id,
    scopes: code.scopes,
    authTime: code.auth_time,
    amr: code.amr,
    // No acr_values on a device authorization: the ID token states the level the methods reach.
    acr: null,
    nonce: null,
    sid: code.sid,
    now,
    refresh: code.refresh_id === null || refreshExpiresAt === null ? null : { rowId: code.refresh_id, expiresAt: refreshExpiresAt },
    dpopJkt,
  });
}
