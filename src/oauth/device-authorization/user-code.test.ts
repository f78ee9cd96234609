import { describe, expect, test } from 'vitest';
import { formatUserCode, generateUserCode, normalizeUserCode, USER_CODE_ALPHABET } from './user-code.ts';

describe('user codes (RFC 8628 §6.1)', () => {
  test('8 characters of the 20 consonants, spread over all of them', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      expect(code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{8}$/);
      for (const c of code) seen.add(c);
    }
    expect([...seen].sort().join('')).toBe(USER_CODE_ALPHABET);
  });

  test.each([
    ['WDJB-MJHT', 'WDJBMJHT'], ['wdjbmjht', 'WDJBMJHT'], [' wdjb mjht ', 'WDJBMJHT'], ['Wd-Jb-Mj-Ht', 'WDJBMJHT'], ['WDJB\u2013MJHT', 'WDJBMJHT'],
  ])('%j is typed as %s', (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code);
  });

  test.each(['', 'WDJB-MJH', 'WDJB-MJHTX', 'WDJB-MJH0', 'AEIO-UBCD', 'WDJB_MJHT', 'W'.repeat(65), 12345678, null, ['WDJBMJHT']])('%j is no code', (typed) => {
    expect(normalizeUserCode(typed)).toBeUndefined();
  });

  test('shown as XXXX-XXXX', () => {
    expect(formatUserCode('WDJBMJHT')).toBe('WDJB-MJHT');
  });
});
