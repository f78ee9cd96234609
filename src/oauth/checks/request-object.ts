/**
 * Request objects (OpenID Connect Core §6) are not supported: a request that
 * sends one is refused with the errors of §6.2 rather than served without it.
 * A `request_uri` naming a pushed request (RFC 9126) is taken before the
 * checks (authorization-request.ts), so one reaching this check is not ours.
 */
import { RequestNotSupported, RequestUriNotSupported } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

export function checkRequestObject(parameters: Parameters): Checked<void> {
  if (parameters.request !== undefined) return refuse(new RequestNotSupported('Request objects are not supported.'));
  if (parameters.request_uri !== undefined) return refuse(new RequestUriNotSupported('request_uri is not supported.'));
  return pass(undefined);
}
