/**
 * `id_token_hint` (OpenID Connect Core §3.1.2.1): an ID token this server
 * issued to the requesting client, naming the member the client expects. The
 * token is verified by tokens/id-token-hint.ts (signature, algorithm, issuer;
 * an expired one is still a hint, as the ID token an app kept usually is).
 * Here the verdict: one that does not verify, or that was issued to another
 * client, is an invalid parameter value (RFC 6749 §4.1.2.1, `invalid_request`).
 */
import { InvalidRequest } from '../errors.ts';
import type { IdTokenHint } from '../tokens/id-token-hint.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

export const INVALID_ID_TOKEN_HINT = 'Invalid id_token_hint.';

/** The hint a request carries; empty is none (RFC 6749 §3.1: a parameter without a value is omitted). */
export function idTokenHintOf(parameters: Parameters): string | undefined {
  const hint = parameters.id_token_hint;
  return hint === undefined || hint === '' ? undefined : hint;
}

/** The hinted member's `sub`; `verified` is what verifyIdTokenHint made of the hint (undefined: no ID token of ours). */
export function checkIdTokenHint(verified: IdTokenHint | undefined, clientId: string): Checked<string> {
  if (!verified) return refuse(new InvalidRequest(INVALID_ID_TOKEN_HINT).withDetail('id_token_hint is no ID token of this server'));
  if (verified.clientId !== clientId) {
    return refuse(new InvalidRequest(INVALID_ID_TOKEN_HINT).withDetail(`id_token_hint was issued to ${verified.clientId}`));
  }
  return pass(verified.sub);
}
