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
    // Decorated as people decorate them: digits or signs around it, digits or signs for letters.
    ...['Passwort123', 'P@ssw0rd!', 'Password2026', 'Sommer2024!', 'Hallo1234', 'qwerty123!', 'Welcome1!', 'Winter2025!', '!!dragonfly', 'L3tm31n!']
      .map((password) => [password, 'is one of the most commonly used passwords; choose another']),
  ])('%s: %s', async (password, problem) => {
    expect(await passwordProblem(password)).toBe(problem);
  });

  /** `length` letters that are no repetition, sequence or keyboard row. */
  const long = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('');

  test.each([
    'correct horse battery staple',
    'äöüßéè€ü',
    '🍎🍐🍊🍋🍌🍉🍇🍓',
    long(64),
    long(1024),
    'no digits or capitals needed',
    'abcdefgi',
    'foodsharing is great',
    'mia muster walks',
    'Garden-Gnome-42',
    'garden gnome 2024',
    `a${'1'.repeat(1000)}b`,
  ])('%s is allowed: no composition rules, 8 to 1,024 code points', async (password) => {
    expect(await passwordProblem(password, 'mia@example.org')).toBeUndefined();
  });

  test('the rules see the password in NFKC, the form it is hashed in', async () => {
    // 9 code points decomposed, 7 composed.
    expect(await passwordProblem('Käsebrö'.normalize('NFD'))).toBe('must be at least 8 characters');
    // U+FB03, FB00, FB02, FB01 (ligatures ffi, ff, fl, fi): 4 code points, 9 letters.
    expect(await passwordProblem('\uFB03\uFB00\uFB02\uFB01')).toBeUndefined();
    expect(await passwordProblem('ｐａｓｓｗｏｒｄ')).toBe('is one of the most commonly used passwords; choose another');
    expect(await passwordProblem('ｍｉａ＠example.org', 'mia@example.org')).toBe('must not be your email address');
  });

  test('the account\'s email address or its local part, in any case', async () => {
    expect(await passwordProblem('Mia.Muster@Example.org', 'mia.muster@example.org')).toBe('must not be your email address');
    expect(await passwordProblem('MIA.MUSTER', ' mia.muster@example.org ')).toBe('must not be your email address');
  });

  test('repetitive or sequential characters (§5.1.1.2)', async () => {
    const problem = 'must not be a repetition or a sequence of characters (aaaaaaaa, 12341234, abcdefgh)';
    for (const password of ['aaaaaaaa', 'bbbbbbbbbb', '        ', '12341234', 'abcabcabc', 'AbcAbcAbc', 'abcdefgh', 'ABCDEFGHIJ', '98765432', 'hgfedcba', 'qwertzuiop', 'wertzuio', 'dfghjklö', 'lkjhgfdsa', 'ääääääää']) {
      expect(await passwordProblem(password), password).toBe(problem);
    }
  });

  test('context-specific words (§5.1.1.2): the service\'s name and the published demo password, also with digits or signs added', async () => {
    const problem = 'must not be the name of this service or the published demo password, nor one of them with digits or signs added';
    for (const password of ['foodsharing', 'foodsharing1', 'Foodsharing2026', 'FOOD-SHARING!', '2026foodsaver', 'demo-password', 'Demo_Password1', 'lebensmittelretten']) {
      expect(await passwordProblem(password, 'mia@example.org'), password).toBe(problem);
    }
    // The demo dataset's own accounts have it (demo-data.ts), as the README says.
    expect(await passwordProblem('demo-password', 'foodsaver@example.org', { demoAccount: true })).toBeUndefined();
  });

  test('the email address or its local part with digits or signs added', async () => {
    for (const [password, email] of [['mia.muster!', 'mia.muster@example.org'], ['storemanager1', 'storemanager@example.org'], ['MiaMuster2026', 'mia.muster@example.org'], ['mia.muster@example.org!', 'mia.muster@example.org']]) {
      expect(await passwordProblem(password!, email), password).toBe('must not be your email address');
    }
    // Two letters prove nothing: a local part of fewer than three letters is compared only as it is.
    expect(await passwordProblem('jo!!2026##', 'jo@example.org')).toBeUndefined();
  });
});
