/**
 * Refresh tokens (SPEC §5.3): a compact JWE (`dir` + `A256GCM`, key derived
 * from the encryption key) whose payload names a database row. The database
 * holds no usable token; revoking the row's grant ends the token.
 */
import { EncryptJWT, jwtDecrypt } from 'jose';
import { derivedKeys } from '../keys/derived-keys.ts';
import type { KeyMaterial } from '../keys/key-material.ts';

export interface RefreshTokenPayload {
  /** Row id in oauth_refresh_tokens. */
  rowId: number;
  /** The client id it was issued to. */
  clientId: string;
}

export function encryptRefreshToken(keys: KeyMaterial, payload: RefreshTokenPayload, nowSeconds: number, expiresAt: Date): Promise<string> {
  return new EncryptJWT({ rid: payload.rowId, client_id: payload.clientId })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'rt+jwt' })
    .setIssuedAt(nowSeconds)
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .encrypt(derivedKeys(keys).refreshToken);
}

/** The row the token names, or undefined when it does not decrypt or has expired. */
export async function decryptRefreshToken(keys: KeyMaterial, token: string, now: Date): Promise<RefreshTokenPayload | undefined> {
  if (token.length > 4096 || token.split('.').length !== 5) return undefined;
  try {
    const { payload } = await jwtDecrypt(token, derivedKeys(keys).refreshToken, {
      keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'], typ: 'rt+jwt', currentDate: now,
    });
    const rowId = payload.rid;
    if (typeof rowId !== 'number' || !Number.isSafeInteger(rowId) || rowId <= 0 || typeof payload.client_id !== 'string') return undefined;
    return { rowId, clientId: payload.client_id };
  } catch {
    return undefined;
  }
}
