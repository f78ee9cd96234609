/**
 * Starting a device authorization (RFC 8628 §3.1, §3.2): a device code for
 * the device, a user code for the member, both stored only as digests, alive
 * {@link DEVICE_CODE_SECONDS} seconds.
 */
import { clientChangedDuringRequest } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { derivedKeys } from '../keys/derived-keys.ts';
import { DEVICE_CODE_SECONDS, DEVICE_POLL_INTERVAL_SECONDS } from '../lifetimes.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { newReference } from './device-code.ts';
import { insertDeviceCode } from './device-codes.repository.ts';
import { digestUserCode, formatUserCode, generateUserCode } from './user-code.ts';

export const DEVICE_VERIFICATION_PATH = '/device';

/** RFC 8628 §3.2 */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** Stores a new device authorization for these (checked) scopes. */
export async function startDeviceAuthorization(ctx: OAuthContext, client: ClientRow, scopes: readonly string[]): Promise<DeviceAuthorizationResponse> {
  const now = ctx.clock();
  const userCodeKey = derivedKeys(ctx.material).userCode;
  // A user code drawn twice (2^34.5 of them) is drawn again; so is, in theory, a device code.
  for (let attempt = 0; attempt < 5; attempt++) {
    const deviceCode = newReference();
    const userCode = generateUserCode();
    const stored = await insertDeviceCode(ctx.db, {
      deviceCodeDigest: deviceCode.digest, userCodeDigest: digestUserCode(userCodeKey, userCode), clientRowId: client.id, clientVersion: client.version, scopes,
      expiresAt: new Date(now.getTime() + DEVICE_CODE_SECONDS * 1000),
    });
    if (stored === 'stale') throw clientChangedDuringRequest();
    if (stored === 'taken') continue;
    const verificationUri = `${ctx.issuer}${DEVICE_VERIFICATION_PATH}`;
    const shown = formatUserCode(userCode);
    return {
      device_code: deviceCode.value,
      user_code: shown,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: shown }).toString()}`,
      expires_in: DEVICE_CODE_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    };
  }
  throw new Error('no free user code after 5 draws');
}
