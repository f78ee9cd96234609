/**
 * Step-up (OpenID Connect Core §3.1.2.1 `acr_values`, §5.5.1.1 essential
 * `acr`; docs/oauth.md, "Step-up"): whether the session already meets one of
 * the levels an app asked for, and if not, whether the member could meet one
 * with the factors they have.
 */
import { ACR_MULTI_FACTOR, ACR_PASSWORD, ACR_PHISHING_RESISTANT, meetsAcr } from '../accounts/authentication-methods.ts';
import type { SecondFactors } from '../accounts/one-time-codes/one-time-codes.repository.ts';

/** The authorization endpoint, where the second step of a step-up returns to. */
export const AUTHORIZE_PATH = '/oauth/authorize';

/**
 * The parameter the step-up page's "cancel" adds to the request it returns to: a request whose step-up
 * would be asked is then answered `access_denied` instead. Anyone may add it; it can only end a request
 * with an error, as the member's cancel does.
 */
export const STEP_UP_CANCELLED = { name: 'step_up', value: 'cancelled' } as const;

/** The first requested level (in the client's order) the methods meet; undefined when none is met. */
export function metAcr(requested: readonly string[] | undefined, amr: readonly string[]): string | undefined {
  return requested?.find((acr) => meetsAcr(amr, acr));
}

/** Whether a member with these factors can reach `acr` by a second step (a passkey is assumed to verify its user). */
export function canReachAcr(acr: string, factors: SecondFactors): boolean {
  switch (acr) {
    case ACR_PASSWORD: return true;
    case ACR_MULTI_FACTOR: return factors.totp || factors.passkeys > 0;
    case ACR_PHISHING_RESISTANT: return factors.passkeys > 0;
    default: return false;
  }
}

/**
 * Why the member cannot meet any requested level by a second step (the
 * `error_description` of `unmet_authentication_requirements`), or undefined
 * when a step-up can meet one.
 */
export function unmetReason(requested: readonly string[], factors: SecondFactors): string | undefined {
  if (requested.some((acr) => canReachAcr(acr, factors))) return undefined;
  return requested.some((acr) => canReachAcr(acr, { totp: true, passkeys: 1 }))
    ? 'The user has no authentication method that meets the requested acr values.'
    : 'None of the requested acr values is supported.';
}
