import { describe, expect, it } from 'vitest';
import { combineMessages, pickLocale, translator } from './i18n.ts';

describe('page strings', () => {
  it('combines the pages\' dictionaries and refuses a key defined by two pages', () => {
    const messages = combineMessages([
      { de: { 'a.x': 'A {n}' }, en: { 'a.x': 'A-en {n}' } },
      { de: { 'b.x': 'B' }, en: {} },
    ]);
    expect(translator(messages, 'en')('a.x', { n: 2 })).toBe('A-en 2');
    expect(translator(messages, 'en')('b.x')).toBe('B');
    expect(translator(messages, 'de')('missing.key')).toBe('missing.key');
    expect(() => combineMessages([{ de: { k: '1' }, en: { k: '1' } }, { de: { k: '2' }, en: { k: '2' } }])).toThrow('Message key defined twice: k');
  });

  it('takes a message\'s singular form when its count (or minutes) is one', () => {
    const messages = { de: { s: '{count} Anmeldungen beendet.', 's.one': 'Eine Anmeldung beendet.', m: 'in {minutes} Minuten', 'm.one': 'in einer Minute', plain: '{count} x' },
      en: { s: '{count} sessions ended.', 's.one': 'One session ended.', m: 'in {minutes} minutes', 'm.one': 'in one minute', plain: '{count} x' } };
    const de = translator(messages, 'de');
    expect([0, 1, 2].map((count) => de('s', { count }))).toEqual(['0 Anmeldungen beendet.', 'Eine Anmeldung beendet.', '2 Anmeldungen beendet.']);
    expect([de('m', { minutes: 1 }), de('m', { minutes: 5 })]).toEqual(['in einer Minute', 'in 5 Minuten']);
    expect(translator(messages, 'en')('s', { count: 1 })).toBe('One session ended.');
    expect(de('plain', { count: 1 })).toBe('1 x');
    const zero = translator({ de: { c: '{count} beendet.', 'c.none': 'Nichts beendet.' }, en: { c: '{count} ended.' } }, 'de');
    expect([zero('c', { count: 0 }), zero('c', { count: 3 })]).toEqual(['Nichts beendet.', '3 beendet.']);
  });

  it('speaks German unless the browser ranks English higher', () => {
    expect(pickLocale(undefined)).toBe('de');
    expect(pickLocale('en-GB,en;q=0.9,de;q=0.5')).toBe('en');
    expect(pickLocale('de,en;q=0.9')).toBe('de');
    expect(pickLocale('fr,en;q=0.5')).toBe('en');
    // q=0: not acceptable (RFC 9110 §12.4.2), so never the pick.
    expect(pickLocale('en;q=0')).toBe('de');
    expect(pickLocale('fr, en;q=0')).toBe('de');
    expect(pickLocale('en;q=0, de;q=0')).toBe('de');
    expect(pickLocale('de;q=0, en;q=0.1')).toBe('en');
  });
});
