/**
 * OpenID Connect Core §5.5.1: the `sub` member of the `claims` parameter's
 * ID token, asked for with a value, names the member the app expects: only
 * their session, or a login by them for the request, may be answered with a
 * code — as for an `id_token_hint` (authorization-request.ts `hintedSubject`).
 * Undefined when no value is asked for.
 */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';
import { idTokenClaimsOf, isObject } from './claims.ts';

export function checkClaimedSubject(parameters: Parameters): Checked<string | undefined> {
  if (parameters.claims === undefined) return pass(undefined);
  const idToken = idTokenClaimsOf(parameters.claims);
  if (typeof idToken === 'string') return refuse(new InvalidRequest(idToken));
  const sub = idToken?.sub;
  if (sub === undefined || sub === null) return pass(undefined);
  if (!isObject(sub)) return refuse(new InvalidRequest('The sub member of the claims parameter must be null or a JSON object.'));
  if (sub.value === undefined) return pass(undefined);
  if (typeof sub.value !== 'string' || sub.value === '') return refuse(new InvalidRequest('The sub value in the claims parameter must be a string.'));
  return pass(sub.value);
}
