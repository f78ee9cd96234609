/** PKCE (RFC 7636). Only `S256` is accepted (RFC 9700 §2.1.1): `plain` is refused. */
import { createHash } from 'node:crypto';
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

/**
 * The authorization request's challenge (RFC 7636 §4.3): required of public
 * clients (SPEC §5.2 step 3, RFC 9700 §2.1.1), optional for confidential ones;
 * S256 only. The challenge, or null when none was sent.
 */
export function checkCodeChallenge(parameters: Parameters, confidential: boolean): Checked<string | null> {
  const method = parameters.code_challenge_method;
  const challenge = parameters.code_challenge;
  if (method !== undefined && method !== 'S256') return refuse(new InvalidRequest('code_challenge_method must be S256.'));
  if (challenge === undefined && !confidential) return refuse(new InvalidRequest('Code challenge required'));
  if (challenge !== undefined && method === undefined) return refuse(new InvalidRequest('code_challenge_method must be S256.'));
  if (challenge === undefined && method !== undefined) return refuse(new InvalidRequest('code_challenge is missing.'));
  if (challenge !== undefined && !isValidS256Challenge(challenge)) return refuse(new InvalidRequest('code_challenge is malformed.'));
  return pass(challenge ?? null);
}

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
