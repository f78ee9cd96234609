/** PKCE (RFC 7636). Only `S256` is accepted (RFC 9700 §2.1.1): `plain` is refused. */
import { createHash } from 'node:crypto';

/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
export function isValidS256Challenge(challenge: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(challenge);
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export function isValidVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier);
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
