/**
 * Purpose-bound keys derived from the one configured encryption key (HKDF,
 * RFC 5869), so that a refresh token, a stored signing key and a client-secret
 * digest never share key material.
 */
import { hkdfSync } from 'node:crypto';
import type { KeyMaterial } from './key-material.ts';

export interface DerivedKeys {
  /** A256GCM key of refresh tokens (JWE `dir`). */
  readonly refreshToken: Uint8Array;
  /** A256GCM key wrapping private signing keys stored in the database. */
  readonly signingKeyWrap: Uint8Array;
  /** HMAC-SHA256 key of client-secret digests. */
  readonly clientSecret: Uint8Array;
  /** HMAC-SHA256 key of login device cookies (accounts/login-device-cookie.ts). */
  readonly loginDevice: Uint8Array;
  /** HMAC-SHA256 key of device-flow user-code digests (oauth/device-authorization/user-code.ts). */
  readonly userCode: Uint8Array;
  /** HMAC-SHA256 key of DPoP nonces (dpop/dpop-nonce.ts): every instance issues and accepts the same ones. */
  readonly dpopNonce: Uint8Array;
  /** A256GCM key of the members' TOTP secrets (accounts/one-time-codes/secret-box.ts). */
  readonly oneTimeCodeSecret: Uint8Array;
  /** HMAC-SHA256 key of recovery-code digests (accounts/one-time-codes/recovery-codes.ts). */
  readonly recoveryCode: Uint8Array;
}

const cache = new WeakMap<KeyMaterial, DerivedKeys>();

function derive(key: Uint8Array, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', key, new Uint8Array(0), `foodsharing-oauth:${purpose}`, 32));
}

/** The derived keys of this key material (computed once per object). */
export function derivedKeys(keys: KeyMaterial): DerivedKeys {
  let derived = cache.get(keys);
  if (!derived) {
    derived = Object.freeze({
      refreshToken: derive(keys.encryptionKey, 'refresh-token'),
      signingKeyWrap: derive(keys.encryptionKey, 'signing-key-wrap'),
      clientSecret: derive(keys.encryptionKey, 'client-secret'),
      loginDevice: derive(keys.encryptionKey, 'login-device'),
      userCode: derive(keys.encryptionKey, 'device-user-code'),
      dpopNonce: derive(keys.encryptionKey, 'dpop-nonce'),
      oneTimeCodeSecret: derive(keys.encryptionKey, 'one-time-code-secret'),
      recoveryCode: derive(keys.encryptionKey, 'recovery-code'),
    });
    cache.set(keys, derived);
  }
  return derived;
}
