/** RFC 7636 with RFC 9700 §2.1.1: S256 only, required of public clients. */
import { describe, expect, test } from 'vitest';
import { checkCodeChallenge, isValidS256Challenge, isValidVerifier, s256 } from './pkce.ts';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE', () => {
  test('S256 of the RFC 7636 Appendix B verifier', () => {
    expect(s256(VERIFIER)).toBe(CHALLENGE);
  });

  test.each([['a'.repeat(43), true], ['a'.repeat(128), true], ['a'.repeat(42), false], ['a'.repeat(129), false], [`${'a'.repeat(42)}+`, false], ['a.b_c~d-'.repeat(6), true]])(
    'verifier %j valid: %s', (verifier, valid) => {
      expect(isValidVerifier(verifier)).toBe(valid);
    });

  test.each([[CHALLENGE, true], [CHALLENGE.slice(1), false], [`${CHALLENGE.slice(1)}=`, false]])('challenge %j valid: %s', (challenge, valid) => {
    expect(isValidS256Challenge(challenge)).toBe(valid);
  });

  test.each([
    [{ code_challenge: CHALLENGE, code_challenge_method: 'S256' }, false, CHALLENGE],
    [{ code_challenge: CHALLENGE, code_challenge_method: 'S256' }, true, CHALLENGE],
    [{}, true, null],
  ])('%o (confidential %s) passes', (parameters, confidential, value) => {
    expect(checkCodeChallenge(parameters, confidential)).toEqual({ ok: true, value });
  });

  test.each([
    [{ code_challenge: CHALLENGE, code_challenge_method: 'plain' }, false, 'code_challenge_method must be S256.'],
    [{}, false, 'Code challenge required'],
    [{ code_challenge: CHALLENGE }, false, 'code_challenge_method must be S256.'],
    [{ code_challenge_method: 'S256' }, true, 'code_challenge is missing.'],
    [{ code_challenge: 'short', code_challenge_method: 'S256' }, false, 'code_challenge is malformed.'],
  ])('%o (confidential %s) → invalid_request', (parameters, confidential, description) => {
    const checked = checkCodeChallenge(parameters, confidential);
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: description });
  });
});
