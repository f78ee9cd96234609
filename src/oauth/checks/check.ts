/**
 * A check's verdict on an authorization request (SPEC §5.2 step 3): the value
 * it read, or the error that goes back to the client's redirect URI (RFC 6749
 * §4.1.2.1). Checks are pure: they read parameters and the client, nothing else.
 */
import type { OAuthError } from '../errors.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: OAuthError };

export function pass<T>(value: T): Checked<T> {
  return { ok: true, value };
}

export function refuse(error: OAuthError): Checked<never> {
  return { ok: false, error };
}

/** The request's own parameters, each a single string (see parameters.ts). */
export type Parameters = Readonly<Record<string, string | undefined>>;
