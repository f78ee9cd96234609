/** RFC 6749 §3.1: authorization request parameters are single, bounded and storable. */
import { describe, expect, test } from 'vitest';
import { checkParameters, MAX_PARAMETER_LENGTH } from './parameters.ts';

const NAMES = ['scope', 'state', 'nonce'];

describe('checkParameters', () => {
  test('keeps the listed parameters as strings and ignores the others; one without a value counts as omitted', () => {
    expect(checkParameters({ scope: 'openid', state: '', other: 'x', nonce: undefined }, NAMES)).toEqual({ ok: true, value: { scope: 'openid' } });
  });

  test.each([
    ['repeated', { state: ['a', 'b'] }, 'The parameter state must be given once.'],
    ['too long', { nonce: 'n'.repeat(MAX_PARAMETER_LENGTH + 1) }, 'The parameter nonce is too long.'],
    ['holding NUL', { scope: 'openid\u0000' }, 'The parameter scope contains a NUL character.'],
  ])('refuses a parameter %s: invalid_request', (_name, raw, description) => {
    const checked = checkParameters(raw, NAMES);
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: description });
  });

  test('a parameter of exactly the maximum length passes', () => {
    expect(checkParameters({ nonce: 'n'.repeat(MAX_PARAMETER_LENGTH) }, NAMES).ok).toBe(true);
  });
});
