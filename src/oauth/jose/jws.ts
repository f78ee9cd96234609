/**
 * Compact JWS (RFC 7515 §3.1, §5) with RS256, ES256 or EdDSA
 * (jose/algorithms.ts) on node:crypto key objects. RS256 signs through
 * node:crypto's threaded `sign(..., callback)`, so the RSA private-key
 * operation runs on libuv's pool, off the event loop; ES256 and EdDSA signing
 * and every verification run inline: each costs less than the thread hop
 * (docs/performance.md). The header segment of each key is
 * serialised once, when the key is loaded.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { isValidSignature, signInline, type SigningAlg } from './algorithms.ts';

/** BASE64URL(UTF8(JSON)) of a header or payload (RFC 7515 §2). */
export function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The compact serialisation of `payload` under a precomputed protected-header segment. */
export function signRs256(headerSegment: string, payload: object, privateKey: KeyObject): Promise<string> {
  const signingInput = `${headerSegment}.${encodeSegment(payload)}`;
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(signingInput, 'ascii'), privateKey, (error, signature) => {
      if (error) reject(error);
      else resolve(`${signingInput}.${signature.toString('base64url')}`);
    });
  });
}

/** The compact serialisation under `alg`; RS256 takes the path above unchanged. */
export async function signJws(alg: SigningAlg, headerSegment: string, payload: object, privateKey: KeyObject): Promise<string> {
  if (alg === 'RS256') return signRs256(headerSegment, payload, privateKey);
  const signingInput = `${headerSegment}.${encodeSegment(payload)}`;
  return `${signingInput}.${signInline(alg, Buffer.from(signingInput, 'ascii'), privateKey).toString('base64url')}`;
}

export interface ParsedJws {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

/** Header and payload of a compact JWS whose two JSON parts are objects; undefined otherwise. Verifies nothing. */
export function parseJws(token: string): ParsedJws | undefined {
  const parts = COMPACT_JWS.exec(token);
  if (!parts) return undefined;
  const header = decodeJsonObject(parts[1]!);
  const payload = header === undefined ? undefined : decodeJsonObject(parts[2]!);
  if (header === undefined || payload === undefined) return undefined;
  return { header, payload, signingInput: `${parts[1]}.${parts[2]}`, signature: Buffer.from(parts[3]!, 'base64url') };
}

/** RFC 7518 §3.3: RSASSA-PKCS1-v1_5 with SHA-256 over the signing input. */
export function isValidRs256Signature(jws: ParsedJws, publicKey: KeyObject): boolean {
  return verify('sha256', Buffer.from(jws.signingInput, 'ascii'), publicKey, jws.signature);
}

/**
 * The signature under the header's `alg`, which must be the algorithm of `publicKey` (RFC 8725 §3.1):
 * an ES256 header on a token whose `kid` names an RSA key is refused, and so is every other mismatch.
 */
export function isValidJwsSignature(jws: ParsedJws, publicKey: KeyObject): boolean {
  return isValidSignature(jws.header.alg, Buffer.from(jws.signingInput, 'ascii'), jws.signature, publicKey);
}

/** RFC 8725 §3.11: media types compare case-insensitively, with or without `application/`. */
export function isMediaType(typ: unknown, expected: string): boolean {
  if (typeof typ !== 'string') return false;
  const normalised = typ.toLowerCase();
  return normalised === expected || normalised === `application/${expected}`;
}

/** The JSON object a base64url segment encodes; undefined for anything else. */
export function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  return parseJsonObject(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** A JSON text that is an object (RFC 7519 §7.2 step 10: a JWT's claims set); undefined for anything else. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}
