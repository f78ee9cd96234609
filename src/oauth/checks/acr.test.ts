import { describe, expect, test } from 'vitest';
import { checkRequestedAcr } from './acr.ts';

const claims = (acr: unknown) => JSON.stringify({ id_token: { acr } });

describe('requested acr (acr_values, claims)', () => {
  test.each([
    [{}, undefined],
    [{ acr_values: 'urn:foodsharing:acr:mfa phr' }, { values: ['urn:foodsharing:acr:mfa', 'phr'], required: true }],
    [{ acr_values: '  ' }, undefined],
    [{ claims: claims({ essential: true, values: ['phr', 'urn:foodsharing:acr:mfa'] }) }, { values: ['phr', 'urn:foodsharing:acr:mfa'], required: true }],
    [{ claims: claims({ essential: true, value: 'phr' }) }, { values: ['phr'], required: true }],
    [{ claims: claims(null) }, undefined],
    [{ claims: JSON.stringify({ userinfo: { email: null } }) }, undefined],
    // The essential claim decides over acr_values; a voluntary one gives way to it.
    [{ acr_values: 'a', claims: claims({ essential: true, values: ['b'] }) }, { values: ['b'], required: true }],
    [{ acr_values: 'a', claims: claims({ values: ['b'] }) }, { values: ['a'], required: true }],
    // A voluntary claim alone is a preference (OpenID Connect Core §5.5.1).
    [{ claims: claims({ values: ['b'] }) }, { values: ['b'], required: false }],
    [{ claims: claims({ essential: false, values: ['b'] }) }, { values: ['b'], required: false }],
  ])('%j → %j', (parameters, expected) => {
    expect(checkRequestedAcr(parameters)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ['{', 'The claims parameter must be a JSON object.'],
    ['[]', 'The claims parameter must be a JSON object.'],
    [JSON.stringify({ id_token: 'acr' }), 'The id_token member of the claims parameter must be a JSON object.'],
    [claims('phr'), 'The acr member of the claims parameter must be null or a JSON object.'],
    [claims({ essential: 'yes', values: ['phr'] }), 'essential in the claims parameter must be true or false.'],
    [claims({ essential: true, values: [1] }), 'The acr value or values in the claims parameter must be strings.'],
  ])('malformed claims %s: invalid_request', (text, description) => {
    const checked = checkRequestedAcr({ claims: text });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: description });
  });

  test.each([
    [{ acr_values: 'urn:x\u202Egnp.exe' }],
    [{ acr_values: 'phr urn:x\u001b[2J' }],
    [{ claims: claims({ values: ['\u202EnoitelED rebmeM'] }) }],
    [{ claims: claims({ essential: true, value: 'a\u009b31m' }) }],
    [{ acr_values: 'x'.repeat(201) }],
  ])('a value with a control or bidirectional formatting character, or over 200 characters (written to the audit log): %j', (parameters) => {
    const checked = checkRequestedAcr(parameters);
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.error.toJSON()).toEqual({
        error: 'invalid_request', error_description: 'An acr value must be at most 200 characters, without control or bidirectional formatting characters.',
      });
    }
  });

  test('200 characters, and the implicit direction marks, are a value like any other', () => {
    expect(checkRequestedAcr({ acr_values: `${'x'.repeat(200)} a\u200Fb` })).toEqual({ ok: true, value: { values: ['x'.repeat(200), 'a\u200Fb'], required: true } });
  });
});
