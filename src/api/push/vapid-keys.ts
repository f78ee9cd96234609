/**
 * The VAPID key pair for web push (RFC 8292), one per deployment: from
 * `VAPID_PUBLIC_KEY` / `VAPID_PRIVATE_KEY` (base64url, as web-push prints
 * them), or else derived from the deployment's encryption key (HKDF), so that
 * every instance computes the same pair and none is generated per instance or
 * stored anywhere. Instances sharing a database share the encryption key
 * (checked at start, src/oauth/keys/key-check.ts).
 */
import { createECDH, hkdfSync } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { KeyMaterial } from '../../oauth/keys/key-material.ts';

export interface VapidKeys {
  /** base64url of the 65-byte uncompressed P-256 point (0x04 || x || y). */
  readonly publicKey: string;
  /** base64url of the 32-byte private scalar. */
  readonly privateKey: string;
}

/**
 * The configured pair, or the derived one. Throws (stopping the start) when
 * a configured key is malformed or the public key is not the private key's:
 * push services would then refuse every message the server signs.
 */
export async function loadVapidKeys(config: Config, material: KeyMaterial): Promise<VapidKeys> {
  if (config.vapidPublicKey !== undefined && config.vapidPrivateKey !== undefined) {
    return checkedKeys(config.vapidPublicKey, config.vapidPrivateKey, 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY');
  }
  return derivedKeys(material.encryptionKey);
}

/** A P-256 scalar from HKDF; a candidate outside [1, n-1] (odds about 2^-32) is skipped for the next. */
function derivedKeys(encryptionKey: Uint8Array): VapidKeys {
  for (let attempt = 0; ; attempt++) {
    const scalar = Buffer.from(hkdfSync('sha256', encryptionKey, new Uint8Array(0), `foodsharing:web-push-vapid:${attempt}`, 32));
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(scalar);
    } catch {
      continue;
    }
    return { publicKey: b64u(ecdh.getPublicKey()), privateKey: b64u(scalar) };
  }
}

function checkedKeys(publicKey: string, privateKey: string, source: string): VapidKeys {
  const point = Buffer.from(publicKey, 'base64url');
  const scalar = Buffer.from(privateKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4 || scalar.length !== 32) {
    throw new Error(`VAPID keys (${source}) must be a base64url 65-byte uncompressed P-256 public key (VAPID_PUBLIC_KEY) `
      + 'and a 32-byte private key (VAPID_PRIVATE_KEY)');
  }
  const derived = publicPointOf(scalar, source);
  if (!derived.equals(point)) {
    throw new Error(`VAPID keys (${source}) do not belong together: VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY `
      + `(that would be ${b64u(derived)})`);
  }
  return { publicKey: b64u(point), privateKey };
}

/** The uncompressed public point of a P-256 private scalar. */
function publicPointOf(scalar: Buffer, source: string): Buffer {
  const ecdh = createECDH('prime256v1');
  try {
    ecdh.setPrivateKey(scalar);
  } catch {
    throw new Error(`VAPID keys (${source}): VAPID_PRIVATE_KEY is not a valid P-256 private key`);
  }
  return ecdh.getPublicKey();
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}
