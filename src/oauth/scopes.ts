/** Scopes and grant types a client may hold (seed: `openid` plus any of `profile`, `email`, `regions`). */
export const SCOPES = ['openid', 'profile', 'email', 'regions'] as const;
export type Scope = (typeof SCOPES)[number];

/** RFC 8628 §3.4's grant type is a URN; CLI `--grant urn:ietf:params:oauth:grant-type:device_code`. */
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

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
