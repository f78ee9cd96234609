/** `prompt` (OpenID Connect Core §3.1.2.1): known values only; `none` stands alone. */
import { InvalidRequest } from '../errors.ts';
import { pass, refuse, type Checked, type Parameters } from './check.ts';

const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);

export function checkPrompt(parameters: Parameters): Checked<ReadonlySet<string>> {
  const prompt = new Set((parameters.prompt ?? '').split(' ').filter((p) => p !== ''));
  if ([...prompt].some((p) => !PROMPTS.has(p))) return refuse(new InvalidRequest('Unknown prompt value.'));
  if (prompt.has('none') && prompt.size > 1) return refuse(new InvalidRequest('prompt=none cannot be combined with other values.'));
  return pass(prompt);
}
