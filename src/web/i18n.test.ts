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

  it('speaks German unless the browser ranks English higher', () => {
    expect(pickLocale(undefined)).toBe('de');
    expect(pickLocale('en-GB,en;q=0.9,de;q=0.5')).toBe('en');
    expect(pickLocale('de,en;q=0.9')).toBe('de');
    expect(pickLocale('fr,en;q=0.5')).toBe('en');
  });
});
