/**
 * `dpop_jkt` (RFC 9449 §10): the SHA-256 JWK thumbprint (RFC 7638) of the key
 * the client will prove at the token endpoint; the code is bound to it.
 */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

/** base64url of a SHA-256 digest, unpadded. */
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

export function checkDpopJkt(parameters: Parameters): Checked<string | null> {
  const value = parameters.dpop_jkt;
  if (value === undefined) return pass(null);
  if (!THUMBPRINT.test(value)) return refuse(new InvalidRequest('dpop_jkt must be a SHA-256 JWK thumbprint (43 base64url characters).'));
  return pass(value);
}
