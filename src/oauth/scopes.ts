/** Scopes and grant types a client may hold (seed: `openid` plus any of `profile`, `email`, `regions`). */
export const SCOPES = ['openid', 'profile', 'email', 'regions'] as const;
export type Scope = (typeof SCOPES)[number];

/** RFC 8628 §3.4's grant type is a URN; CLI `--grant urn:ietf:params:oauth:grant-type:device_code`. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/**
 * OpenID Connect Core §11: `offline_access` asks for a refresh token. Accepted in any request and then
 * dropped: whether a client gets refresh tokens is its registration's `refresh_token` grant, asked or not
 * (§11 lets the server ignore the request), so a library that always asks for it is not refused.
 */
export const OFFLINE_ACCESS = 'offline_access';

/** The requested scopes without {@link OFFLINE_ACCESS}. */
export function withoutOfflineAccess(requested: readonly string[]): string[] {
  return requested.filter((scope) => scope !== OFFLINE_ACCESS);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isGrantType(value: string): value is GrantType {
  return (GRANT_TYPES as readonly string[]).includes(value);
}

/** Canonical order, without duplicates. */
export function sortScopes(scopes: Iterable<string>): Scope[] {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
}
