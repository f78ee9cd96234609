import { describe, expect, test } from 'vitest';
import { checkClaimedSubject } from './claimed-subject.ts';

describe('the sub value of the claims parameter', () => {
  test.each([
    [{}, undefined],
    [{ claims: JSON.stringify({ id_token: { sub: { value: '42' } } }) }, '42'],
    [{ claims: JSON.stringify({ id_token: { sub: null, acr: null } }) }, undefined],
    [{ claims: JSON.stringify({ id_token: { sub: { essential: true } } }) }, undefined],
    // Only the ID token's sub names a member (§5.5.1); userinfo's is ignored.
    [{ claims: JSON.stringify({ userinfo: { sub: { value: '42' } } }) }, undefined],
  ])('%j → %j', (parameters, expected) => {
    expect(checkClaimedSubject(parameters)).toEqual({ ok: true, value: expected });
  });

  test.each([
    ['{', 'The claims parameter must be a JSON object.'],
    [JSON.stringify({ id_token: { sub: '42' } }), 'The sub member of the claims parameter must be null or a JSON object.'],
    [JSON.stringify({ id_token: { sub: { value: 42 } } }), 'The sub value in the claims parameter must be a string.'],
    [JSON.stringify({ id_token: { sub: { value: '' } } }), 'The sub value in the claims parameter must be a string.'],
  ])('malformed %s: invalid_request', (text, description) => {
    const checked = checkClaimedSubject({ claims: text });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: description });
  });
});
