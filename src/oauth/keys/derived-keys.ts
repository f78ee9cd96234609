/**
 * Purpose-bound keys derived from the one configured encryption key (HKDF,
 * RFC 5869), so that a refresh token, a stored signing key and a client-secret
 * digest never share key material. Each is a secret `KeyObject`: node:crypto
 * takes one as it is, where a byte array passed as a key is first tried as a
 * `CryptoKey`, a refusal that captures a stack trace on every call
 * (docs/performance.md).
 */
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import type { KeyMaterial } from './key-material.ts';

export interface DerivedKeys {
  /** A256GCM key of refresh tokens (JWE `dir`). */
  readonly refreshToken: KeyObject;
  /** A256GCM key wrapping private signing keys stored in the database. */
  readonly signingKeyWrap: KeyObject;
  /** HMAC-SHA256 key of client-secret digests. */
  readonly clientSecret: KeyObject;
  /** HMAC-SHA256 key of login device cookies (accounts/login-device-cookie.ts). */
  readonly loginDevice: KeyObject;
  /** HMAC-SHA256 key of device-flow user-code digests (oauth/device-authorization/user-code.ts). */
  readonly userCode: KeyObject;
  /** HMAC-SHA256 key of DPoP nonces (dpop/dpop-nonce.ts): every instance issues and accepts the same ones. */
  readonly dpopNonce: KeyObject;
  /** A256GCM key of the members' TOTP secrets (accounts/one-time-codes/secret-box.ts). */
  readonly oneTimeCodeSecret: KeyObject;
  /** HMAC-SHA256 key of recovery-code digests (accounts/one-time-codes/recovery-codes.ts). */
  readonly recoveryCode: KeyObject;
  /** HMAC-SHA256 key of the authorization endpoint's `login_after` markers (oauth/login-marker.ts). */
  readonly loginMarker: KeyObject;
}

const cache = new WeakMap<KeyMaterial, DerivedKeys>();

function derive(key: Uint8Array, purpose: string): KeyObject {
  return createSecretKey(new Uint8Array(hkdfSync('sha256', key, new Uint8Array(0), `foodsharing-oauth:${purpose}`, 32)));
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
      loginMarker: derive(keys.encryptionKey, 'login-marker'),
    });
    cache.set(keys, derived);
  }
  return derived;
}
