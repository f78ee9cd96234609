/**
 * Client authentication methods (RFC 7591 §2 `token_endpoint_auth_method`,
 * OpenID Connect Core 1.0 §9) and the JWS algorithms accepted for client
 * assertions: asymmetric only (RFC 8725 §3.1 — no `none`, no HMAC, which
 * would need a shared secret we do not keep in plain).
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
export type TokenEndpointAuthMethod = typeof TOKEN_ENDPOINT_AUTH_METHODS[number];

/**
 * `Ed25519` is the fully-specified name of EdDSA with an Ed25519 key (RFC 9864
 * §2.2); libraries such as oauth4webapi sign with it. Both names are accepted.
 */
export const ASSERTION_SIGNING_ALGS = ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'] as const;

export function isTokenEndpointAuthMethod(value: unknown): value is TokenEndpointAuthMethod {
  return (TOKEN_ENDPOINT_AUTH_METHODS as readonly unknown[]).includes(value);
}

/** A secret method: the client may use either of the two (RFC 6749 §2.3.1). */
export function isSecretMethod(method: TokenEndpointAuthMethod): boolean {
  return method === 'client_secret_basic' || method === 'client_secret_post';
}
