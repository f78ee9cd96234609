/**
 * Step-up (OpenID Connect Core §3.1.2.1 `acr_values`, §5.5.1.1 essential
 * `acr`; docs/oauth.md, "Step-up"): whether the session already meets one of
 * the levels an app asked for, and if not, whether the member could meet one
 * with the factors they have.
 */
import { ACR_MULTI_FACTOR, ACR_PASSWORD, ACR_PHISHING_RESISTANT, meetsAcr } from '../accounts/authentication-methods.ts';
import type { SecondFactors } from '../accounts/one-time-codes/one-time-codes.repository.ts';

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
