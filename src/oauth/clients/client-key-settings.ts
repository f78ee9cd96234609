/**
 * The authentication settings of a client (RFC 7591 §2: `token_endpoint_auth_method`,
 * `jwks`, `jwks_uri`): a secret method, `private_key_jwt` with public keys
 * given inline or by URL (never both, OpenID Connect Registration 1.0 §2), or
 * `none` for a public client.
 */
import { createPublicKey, type AsymmetricKeyDetails, type JsonWebKey } from 'node:crypto';
import type { FieldError } from '../../invalid-input.ts';
import { backchannelLogoutUriProblem } from '../checks/logout-uri.ts';
import { isTokenEndpointAuthMethod, TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './auth-methods.ts';

export const MAX_CLIENT_KEYS = 20;
const PUBLIC_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);
/** Members of private or symmetric JWKs (RFC 7518 §6): a client registers public keys only. */
const SECRET_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface KeySettingsInput {
  confidential: boolean;
  tokenEndpointAuthMethod?: string | undefined;
  jwks?: unknown;
  jwksUri?: string | null | undefined;
}

export interface KeySettings {
  confidential: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
}

/** The method decides whether the client is confidential; without one, `confidential` picks a secret method or none. */
export function validateKeySettings(input: KeySettingsInput, errors: FieldError[]): KeySettings {
  const given = input.tokenEndpointAuthMethod;
  if (given !== undefined && !isTokenEndpointAuthMethod(given)) {
    errors.push({ field: 'tokenEndpointAuthMethod', message: `must be one of ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')}` });
  }
  const method: TokenEndpointAuthMethod = isTokenEndpointAuthMethod(given) ? given : input.confidential ? 'client_secret_basic' : 'none';
  if (method !== 'private_key_jwt') return { confidential: method !== 'none', tokenEndpointAuthMethod: method, jwks: null, jwksUri: null };
  const jwksUri = input.jwksUri?.trim() || null;
  const jwks = input.jwks === undefined || input.jwks === null ? null : checkJwks(input.jwks, errors);
  if (jwksUri !== null) {
    const problem = backchannelLogoutUriProblem(jwksUri);
    if (problem) errors.push({ field: 'jwksUri', message: problem });
  }
  if ((jwks === null) === (jwksUri === null) && !errors.some((e) => e.field === 'jwks')) {
    errors.push({ field: 'jwks', message: 'private_key_jwt needs the client\'s public keys: either jwks or jwks_uri, not both' });
  }
  return { confidential: true, tokenEndpointAuthMethod: method, jwks, jwksUri };
}

function checkJwks(value: unknown, errors: FieldError[]): KeySettings['jwks'] {
  const keys = (value as { keys?: unknown }).keys;
  if (typeof value !== 'object' || !Array.isArray(keys) || keys.length === 0 || keys.length > MAX_CLIENT_KEYS) {
    errors.push({ field: 'jwks', message: `must be a JWK Set: {"keys": [...]} with 1 to ${MAX_CLIENT_KEYS} public keys` });
    return null;
  }
  for (const [index, key] of keys.entries()) {
    const problem = publicKeyProblem(key);
    if (problem) errors.push({ field: 'jwks', message: `key ${index + 1} ${problem}` });
  }
  return { keys: keys as Record<string, unknown>[] };
}

function publicKeyProblem(key: unknown): string | undefined {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return 'is not a JWK';
  const jwk = key as Record<string, unknown>;
  if (!PUBLIC_KEY_TYPES.has(jwk.kty as string)) return 'must be an RSA, EC or OKP key';
  if (SECRET_MEMBERS.some((member) => member in jwk)) return 'holds private key material: register the public key only';
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') return 'has a kid that is not a string';
  return verifyingKeyProblem(jwk);
}

/** The algorithms a key of each type verifies assertions with (auth-methods.ts ASSERTION_SIGNING_ALGS). */
const ALGS_OF_KEY_TYPE: Readonly<Record<string, readonly string[]>> = { RSA: ['RS256', 'PS256'], EC: ['ES256'], OKP: ['EdDSA', 'Ed25519'] };
const MIN_RSA_BITS = 2048;

/**
 * A key that could never verify an assertion is refused when it is registered,
 * not by a bare `invalid_client` at every request: its members must make a
 * key (Node's own import), of a curve and size an accepted algorithm signs
 * with (P-256 for ES256, Ed25519, RSA of at least 2,048 bits: NIST SP
 * 800-131A), and `alg`, `use` and `key_ops`, when given, must allow it.
 */
function verifyingKeyProblem(jwk: Record<string, unknown>): string | undefined {
  let details: AsymmetricKeyDetails;
  try {
    details = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails ?? {};
  } catch {
    return 'is not a valid public key (its members make no key)';
  }
  if (jwk.kty === 'EC' && jwk.crv !== 'P-256') return 'must be on the curve P-256 (ES256)';
  if (jwk.kty === 'OKP' && jwk.crv !== 'Ed25519') return 'must be an Ed25519 key (EdDSA)';
  if (jwk.kty === 'RSA' && (details.modulusLength ?? 0) < MIN_RSA_BITS) return `must have a modulus of at least ${MIN_RSA_BITS} bits`;
  const algs = ALGS_OF_KEY_TYPE[jwk.kty as string]!;
  if (jwk.alg !== undefined && !algs.includes(jwk.alg as string)) return `has alg ${JSON.stringify(jwk.alg)}: ${jwk.kty} keys sign assertions with ${algs.join(' or ')}`;
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'must be a signing key (use "sig")';
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) return 'must allow "verify" in key_ops';
  return undefined;
}
