/**
 * The authentication context classes an app asks for (OpenID Connect Core
 * §3.1.2.1 `acr_values`; §5.5 the `claims` parameter's ID token `acr`
 * member, §5.5.1.1): the values in the client's order
 * of preference, or undefined when none were asked for. `acr_values` is
 * voluntary in the spec; this server honours it as it honours an essential
 * `acr` (docs/oauth.md, "Step-up"): `required`. An essential `acr` claim
 * decides when both are sent. A voluntary `acr` claim alone is a preference
 * (§5.5.1: no error when it cannot be met): asked for when the member can
 * meet it, passed over when not. Of the other members only `sub` is read
 * (claimed-subject.ts).
 */
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';
import { idTokenClaimsOf, isObject } from './claims.ts';

const MAX_VALUES = 10;
/** Longer than any level's name (`urn:foodsharing:acr:password`); the values are written to the audit log. */
const MAX_VALUE_LENGTH = 200;

export interface RequestedAcr {
  /** The levels, in the client's order of preference. */
  readonly values: readonly string[];
  /** Unmet, an error (`acr_values`, an essential claim); else the session's own level is given. */
  readonly required: boolean;
}

export function checkRequestedAcr(parameters: Parameters): Checked<RequestedAcr | undefined> {
  let fromClaims: { values: string[]; essential: boolean } | undefined;
  if (parameters.claims !== undefined) {
    const read = acrOfClaims(parameters.claims);
    if (typeof read === 'string') return refuse(new InvalidRequest(read));
    fromClaims = read;
  }
  const fromParameter = parameters.acr_values?.split(' ').filter((v) => v !== '');
  const requested = fromClaims?.essential ? { values: fromClaims.values, required: true }
    : fromParameter?.length ? { values: fromParameter, required: true }
      : fromClaims && { values: fromClaims.values, required: false };
  if (requested === undefined || requested.values.length === 0) return pass(undefined);
  if (requested.values.length > MAX_VALUES) return refuse(new InvalidRequest(`At most ${MAX_VALUES} acr values may be requested.`));
  // Written to the audit log as asked for: no control or bidirectional formatting characters (text/control-characters.ts).
  if (requested.values.some((v) => v.length > MAX_VALUE_LENGTH || hasRefusedNameCharacters(v))) {
    return refuse(new InvalidRequest(`An acr value must be at most ${MAX_VALUE_LENGTH} characters, without control or bidirectional formatting characters.`));
  }
  return pass({ values: [...new Set(requested.values)], required: requested.required });
}

/** The `acr` member of the ID token's claims: its values and whether essential; a string: why the parameter is malformed. */
function acrOfClaims(text: string): { values: string[]; essential: boolean } | undefined | string {
  const idToken = idTokenClaimsOf(text);
  if (idToken === undefined || typeof idToken === 'string') return idToken;
  const acr = idToken.acr;
  if (acr === undefined || acr === null) return undefined;
  if (!isObject(acr)) return 'The acr member of the claims parameter must be null or a JSON object.';
  if (acr.essential !== undefined && typeof acr.essential !== 'boolean') return 'essential in the claims parameter must be true or false.';
  const values = acr.values !== undefined ? acr.values : acr.value !== undefined ? [acr.value] : [];
  if (!Array.isArray(values) || !values.every((v): v is string => typeof v === 'string' && v !== '')) {
    return 'The acr value or values in the claims parameter must be strings.';
  }
  return { values, essential: acr.essential === true };
}
