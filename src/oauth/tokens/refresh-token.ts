/**
 * Refresh tokens (SPEC §5.3): a compact JWE (`dir` + `A256GCM`, key derived
 * from the encryption key) whose payload names a database row. The database
 * holds no usable token; revoking the row's grant ends the token.
 */
import { decryptDirA256Gcm, dirA256GcmHeader, encryptDirA256Gcm } from '../jose/jwe.ts';
import { derivedKeys } from '../keys/derived-keys.ts';
import type { KeyMaterial } from '../keys/key-material.ts';

const TYP = 'rt+jwt';
const HEADER = dirA256GcmHeader(TYP);

export interface RefreshTokenPayload {
  /** Row id in oauth_refresh_tokens. */
  rowId: number;
  /** The client id it was issued to. */
  clientId: string;
}

export interface DecryptedRefreshToken extends RefreshTokenPayload {
  /** Seconds since the epoch: issued, and expiring. */
  iat: number;
  exp: number;
}

export function encryptRefreshToken(keys: KeyMaterial, payload: RefreshTokenPayload, nowSeconds: number, expiresAt: Date): string {
  const claims = { rid: payload.rowId, client_id: payload.clientId, iat: nowSeconds, exp: Math.floor(expiresAt.getTime() / 1000) };
  return encryptDirA256Gcm(HEADER, claims, derivedKeys(keys).refreshToken);
}

/** The row the token names, or undefined when it does not decrypt or has expired. */
export function decryptRefreshToken(keys: KeyMaterial, token: string, now: Date): DecryptedRefreshToken | undefined {
  if (token.length > 4096) return undefined;
  const payload = decryptDirA256Gcm(token, derivedKeys(keys).refreshToken, TYP);
  if (!payload || typeof payload.exp !== 'number' || payload.exp <= Math.floor(now.getTime() / 1000)) return undefined;
  const rowId = payload.rid;
  if (typeof rowId !== 'number' || !Number.isSafeInteger(rowId) || rowId <= 0 || typeof payload.client_id !== 'string') return undefined;
  return { rowId, clientId: payload.client_id, iat: typeof payload.iat === 'number' ? payload.iat : 0, exp: payload.exp };
}
