/**
 * How a member signed in: RFC 8176 authentication method references, and the
 * authentication context class (`acr`) they reach.
 *
 * Levels, weakest first (docs/oauth.md, "Authentication methods and levels"):
 * - {@link ACR_PASSWORD}: one factor (a password alone);
 * - {@link ACR_MULTI_FACTOR}: two factors — a password and a one-time code or a
 *   passkey, or a passkey with user verification (the device and the member's
 *   PIN or biometric);
 * - {@link ACR_PHISHING_RESISTANT}: a passkey (OpenID "phr": the credential is bound
 *   to this server's origin, so a look-alike site cannot replay it).
 */

/** The RFC 8176 values this server uses. */
export type AuthenticationMethod = 'pwd' | 'otp' | 'hwk' | 'swk' | 'user' | 'mfa';

/** What a session signed in with a password alone carries (and every session from before methods were recorded). */
export const PASSWORD_ONLY: readonly AuthenticationMethod[] = ['pwd'];

export const ACR_PASSWORD = 'urn:foodsharing:acr:password';
export const ACR_MULTI_FACTOR = 'urn:foodsharing:acr:mfa';
/** OpenID Extended Authentication Profile ACR Values 1.0: phishing-resistant. */
export const ACR_PHISHING_RESISTANT = 'phr';

/** Every `acr` value this server can meet, for discovery's `acr_values_supported`. */
export const ACR_VALUES_SUPPORTED: readonly string[] = [ACR_PASSWORD, ACR_MULTI_FACTOR, ACR_PHISHING_RESISTANT];

const PASSKEY: ReadonlySet<string> = new Set(['hwk', 'swk']);

/** Whether the methods meet the level `acr` (an unknown value is met by nothing). */
export function meetsAcr(amr: readonly string[], acr: string): boolean {
  switch (acr) {
    case ACR_PASSWORD: return amr.length > 0;
    case ACR_MULTI_FACTOR: return amr.includes('mfa') || (amr.some((m) => PASSKEY.has(m)) && amr.includes('user'));
    case ACR_PHISHING_RESISTANT: return amr.some((m) => PASSKEY.has(m));
    default: return false;
  }
}

/** The strongest level the methods reach, stated as the ID token's `acr`. */
export function acrOf(amr: readonly string[]): string {
  if (meetsAcr(amr, ACR_PHISHING_RESISTANT)) return ACR_PHISHING_RESISTANT;
  if (meetsAcr(amr, ACR_MULTI_FACTOR)) return ACR_MULTI_FACTOR;
  return ACR_PASSWORD;
}

/**
 * The `amr` an ID token states (RFC 8176 §2): the recorded methods, with `user` — the test of user presence
 * — wherever a passkey was used, as every assertion accepted here passed it (its UP flag is required). The
 * record keeps `user` only for a passkey that verified its member (UV), where inside this server it marks
 * one passkey as two factors ({@link isMultiFactor}); in the token, `mfa` says that.
 */
export function statedAmr(amr: readonly string[]): string[] {
  const key = amr.findIndex((m) => PASSKEY.has(m));
  if (key === -1 || amr.includes('user')) return [...amr];
  return [...amr.slice(0, key + 1), 'user', ...amr.slice(key + 1)];
}

const HELD: ReadonlySet<string> = new Set(['otp', 'hwk', 'swk']);

/**
 * Whether the methods are two factors (NIST SP 800-63B §4.2.1: AAL2): a passkey
 * that verified its member (itself multi-factor: the device and a PIN or
 * biometric), or a password (something known) with something held — a
 * one-time code or a passkey. Two things held (a passkey that verified nobody
 * and a code) are one factor twice.
 */
function isMultiFactor(amr: readonly string[]): boolean {
  return (amr.includes('user') && amr.some((m) => PASSKEY.has(m))) || (amr.includes('pwd') && amr.some((m) => HELD.has(m)));
}

/** The methods of a session that has just proved `proved` besides `amr`: `mfa` when together they are two factors. */
export function withFactor(amr: readonly string[], proved: readonly AuthenticationMethod[]): AuthenticationMethod[] {
  const methods = [...new Set([...amr, ...proved].filter((m) => m !== 'mfa'))] as AuthenticationMethod[];
  return isMultiFactor(methods) ? [...methods, 'mfa'] : methods;
}

/** The methods of a session that has just proved a one-time code besides them (two factors with a password). */
export function withOneTimeCode(amr: readonly string[]): AuthenticationMethod[] {
  return withFactor(amr, ['otp']);
}

/** Whether a one-time code would make these methods two factors: they include the password. */
export function completedByOneTimeCode(amr: readonly string[]): boolean {
  return isMultiFactor(withOneTimeCode(amr));
}
