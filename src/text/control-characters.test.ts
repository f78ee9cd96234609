/** The characters no name may hold, and their escaping for a terminal (docs/security.md "Spoofed names"). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { escapeForTerminal, hasRefusedNameCharacters, NAME_PATTERN } from './control-characters.ts';

const REFUSED = ['\u0000', '\t', '\n', '\u001b', '\u007f', '\u0080', '\u0085', '\u009b', '\u009f', '\u202a', '\u202e', '\u2066', '\u2067', '\u2069'];
const ALLOWED = ['Ärger Straße', '😀 Emoji 👩‍👩‍👧', 'عبد الله', 'שלום עולם', 'Wiki \u200fמרכז\u200e', 'Tag-Flagge 🏴󠁧󠁢󠁳󠁣󠁴󠁿', '\u00a0non-breaking', '\u2065', '\u206a'];
const refusedCharacter = fc.constantFrom(...REFUSED);
/** Any text, the refused characters (written out here independently of the module) taken out. */
const allowedText = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu, ''));

describe('hasRefusedNameCharacters and NAME_PATTERN', () => {
  const pattern = new RegExp(NAME_PATTERN, 'u');

  test.each(REFUSED.map((c) => [`U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`, c]))('refuses %s anywhere in a name', (_label, c) => {
    for (const name of [c, `Wiki${c}`, `${c}Wiki`, `Wi${c}ki`]) {
      expect(hasRefusedNameCharacters(name)).toBe(true);
      expect(pattern.test(name)).toBe(false);
    }
  });

  test.each(ALLOWED)('accepts ordinary non-ASCII text: %s', (name) => {
    expect(hasRefusedNameCharacters(name)).toBe(false);
    expect(pattern.test(name)).toBe(true);
  });

  test('the predicate and the pattern agree; one refused character anywhere refuses the name', () => {
    fc.assert(fc.property(allowedText, allowedText, refusedCharacter, (before, after, c) => {
      expect(hasRefusedNameCharacters(before + after)).toBe(false);
      expect(pattern.test(before + after)).toBe(true);
      expect(hasRefusedNameCharacters(before + c + after)).toBe(true);
      expect(pattern.test(before + c + after)).toBe(false);
    }));
  });
});

describe('escapeForTerminal', () => {
  test('writes controls and bidirectional formatting as \\uXXXX; keeps line feeds unless told', () => {
    expect(escapeForTerminal('Wiki \u202enigol\u2067x\u009b31m\u0085\u001b[2J\r\t\u200f\u2028')).toBe('Wiki \\u202Enigol\\u2067x\\u009B31m\\u0085\\u001B[2J\\u000D\\u0009\\u200F\\u2028');
    expect(escapeForTerminal('a\nb')).toBe('a\nb');
    expect(escapeForTerminal('a\nb', 'escape')).toBe('a\\u000Ab');
    expect(escapeForTerminal('Ärger 😀 عبد الله שלום 🏴󠁧󠁢󠁳󠁣󠁴󠁿')).toBe('Ärger 😀 عبد الله שלום 🏴󠁧󠁢󠁳󠁣󠁴󠁿');
  });

  test('leaves nothing a terminal obeys; JSON escaped this way parses to the same value', () => {
    fc.assert(fc.property(fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), refusedCharacter), { maxLength: 5 }), (parts) => {
      const text = parts.join('');
      expect(escapeForTerminal(text, 'escape')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
      const json = JSON.stringify({ name: text, list: [text] }, null, 2);
      expect(JSON.parse(escapeForTerminal(json))).toEqual({ name: text, list: [text] });
    }));
  });
});
