/**
 * The parameters of an authorization request (RFC 6749 §3.1): each at most
 * once, of bounded length, and storable (PostgreSQL text cannot hold NUL; the
 * nonce is stored with the code). Parameters not listed are ignored.
 */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked } from './check.ts';

export const MAX_PARAMETER_LENGTH = 2048;

export function checkParameters(raw: Record<string, unknown>, names: readonly string[]): Checked<Record<string, string>> {
  const parameters: Record<string, string> = {};
  for (const name of names) {
    const value = raw[name];
    // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') return refuse(new InvalidRequest(`The parameter ${name} must be given once.`));
    if (value.length > MAX_PARAMETER_LENGTH) return refuse(new InvalidRequest(`The parameter ${name} is too long.`));
    if (value.includes('\u0000')) return refuse(new InvalidRequest(`The parameter ${name} contains a NUL character.`));
    parameters[name] = value;
  }
  return pass(parameters);
}
