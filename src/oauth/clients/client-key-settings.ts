/**
 * The authentication settings of a client (RFC 7591 §2: `token_endpoint_auth_method`,
 * `jwks`, `jwks_uri`): a secret method, `private_key_jwt` with public keys
 * given inline or by URL (never both, OpenID Connect Registration 1.0 §2), or
 * `none` for a public client.
 */
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
  return undefined;
}
