/**
 * The JWS algorithms this server signs with (RFC 7518 §3.3 RS256, §3.4 ES256;
 * RFC 8037 §3.1 EdDSA with Ed25519), each on node:crypto key objects. A key
 * belongs to exactly one algorithm, read off the key itself: a token is
 * verified only when its `alg` is the algorithm of the key its `kid` names
 * (RFC 8725 §3.1, no algorithm confusion).
 */
import { sign, verify, type KeyObject } from 'node:crypto';

export const SIGNING_ALGS = ['RS256', 'ES256', 'EdDSA'] as const;
export type SigningAlg = typeof SIGNING_ALGS[number];
/** What a client gets unless it asks for another (OpenID Connect Registration 1.0 §2, `id_token_signed_response_alg`). */
export const DEFAULT_SIGNING_ALG: SigningAlg = 'RS256';

export function isSigningAlg(value: unknown): value is SigningAlg {
  return (SIGNING_ALGS as readonly unknown[]).includes(value);
}

/** The one algorithm a key serves; undefined for a key of no supported kind (an EC key off P-256, say). */
export function algorithmOfKey(key: KeyObject): SigningAlg | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa': return 'RS256';
    case 'ec': return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? 'ES256' : undefined;
    case 'ed25519': return 'EdDSA';
    default: return undefined;
  }
}

/** ES256 signatures are R || S, 32 bytes each (RFC 7518 §3.4), not DER. */
const ECDSA_JWS = { dsaEncoding: 'ieee-p1363' } as const;

/**
 * Signs `data` with an ES256 or Ed25519 key, inline: one such signature
 * costs less CPU than the hop to a pool thread and back (docs/performance.md).
 * RS256 signs on libuv's pool instead (jws.ts `signRs256`): a 2048-bit RSA
 * private-key operation takes hundreds of microseconds, which the event loop
 * should not wait out. ES256 hashes with SHA-256; Ed25519 hashes internally
 * (digest null, RFC 8032).
 */
export function signInline(alg: Exclude<SigningAlg, 'RS256'>, data: Buffer, privateKey: KeyObject): Buffer {
  return alg === 'ES256' ? sign('sha256', data, { key: privateKey, ...ECDSA_JWS }) : sign(null, data, privateKey);
}

/** Whether `signature` is a valid `alg` signature of `data` under `publicKey`, which must be a key of that algorithm. */
export function isValidSignature(alg: unknown, data: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
  if (!isSigningAlg(alg) || algorithmOfKey(publicKey) !== alg) return false;
  if (alg === 'RS256') return verify('sha256', data, publicKey, signature);
  if (alg === 'ES256') return signature.length === 64 && verify('sha256', data, { key: publicKey, ...ECDSA_JWS }, signature);
  return signature.length === 64 && verify(null, data, publicKey, signature);
}
