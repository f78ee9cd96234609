/** `nonce` (OpenID Connect Core §3.1.2.1): stored with the code and echoed in the ID token, so bounded; empty means none. */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

export const MAX_NONCE_LENGTH = 512;

export function checkNonce(parameters: Parameters): Checked<string | null> {
  if (parameters.nonce !== undefined && parameters.nonce.length > MAX_NONCE_LENGTH) return refuse(new InvalidRequest('nonce is too long.'));
  return pass(parameters.nonce !== undefined && parameters.nonce !== '' ? parameters.nonce : null);
}
