import { describe, expect, test } from 'vitest';
import { passwordProblem } from './password-policy.ts';

describe('passwordProblem (NIST SP 800-63B §5.1.1.2)', () => {
  test.each([
    ['1234567', 'must be at least 8 characters'],
    ['äöüßéè€', 'must be at least 8 characters'],
    ['x'.repeat(1025), 'must be at most 1024 characters'],
    ['password', 'is one of the most commonly used passwords; choose another'],
    ['PassWord1', 'is one of the most commonly used passwords; choose another'],
    ['12345678', 'is one of the most commonly used passwords; choose another'],
    ['qwertyuiop', 'is one of the most commonly used passwords; choose another'],
  ])('%s: %s', async (password, problem) => {
    expect(await passwordProblem(password)).toBe(problem);
  });

  test.each([
    'correct horse battery staple',
    'äöüßéè€ü',
    '🍎🍐🍊🍋🍌🍉🍇🍓',
    'x'.repeat(64),
    'x'.repeat(1024),
    'no digits or capitals needed',
    'demo-password',
  ])('%s is allowed: no composition rules, 8 to 1,024 code points', async (password) => {
    expect(await passwordProblem(password, 'mia@example.org')).toBeUndefined();
  });

  test('the rules see the password in NFKC, the form it is hashed in', async () => {
    // 9 code points decomposed, 7 composed.
    expect(await passwordProblem('Käsebrö'.normalize('NFD'))).toBe('must be at least 8 characters');
    // U+FB03 LATIN SMALL LIGATURE FFI: 3 code points, 9 letters.
    expect(await passwordProblem('\uFB03\uFB03\uFB03')).toBeUndefined();
    expect(await passwordProblem('ｐａｓｓｗｏｒｄ')).toBe('is one of the most commonly used passwords; choose another');
    expect(await passwordProblem('ｍｉａ＠example.org', 'mia@example.org')).toBe('must not be your email address');
  });

  test('the account\'s email address or its local part, in any case', async () => {
    expect(await passwordProblem('Mia.Muster@Example.org', 'mia.muster@example.org')).toBe('must not be your email address');
    expect(await passwordProblem('MIA.MUSTER', ' mia.muster@example.org ')).toBe('must not be your email address');
    expect(await passwordProblem('mia.muster!', 'mia.muster@example.org')).toBeUndefined();
  });
});
