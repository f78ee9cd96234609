/** `max_age` (OpenID Connect Core §3.1.2.1): a whole number of seconds; undefined when absent. */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

export function checkMaxAge(parameters: Parameters): Checked<number | undefined> {
  if (parameters.max_age === undefined) return pass(undefined);
  if (!/^\d{1,9}$/.test(parameters.max_age)) return refuse(new InvalidRequest('max_age must be a whole number of seconds.'));
  return pass(Number(parameters.max_age));
}
