/**
 * Only the authorization code flow (RFC 6749 §4.1.1, OpenID Connect Core
 * §3.1.2.1: `response_type=code`), answered in the query (OAuth 2.0 Multiple
 * Response Type Encoding Practices §2.1: `response_mode=query`).
 */
import { InvalidRequest, UnsupportedResponseType } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

export function checkResponseType(parameters: Parameters): Checked<'code'> {
  if (parameters.response_type === undefined) return refuse(new InvalidRequest('response_type is required.'));
  if (parameters.response_type !== 'code') return refuse(new UnsupportedResponseType('Only response_type=code is supported.'));
  if (parameters.response_mode !== undefined && parameters.response_mode !== 'query') {
    return refuse(new InvalidRequest('Only response_mode=query is supported.'));
  }
  return pass('code');
}
