import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from './conditional.ts';

const ETAG = '"a1b2"';

describe('ifNoneMatchMatches (RFC 9110 §13.1.2, weak comparison)', () => {
  it.each([
    ['the same tag', '"a1b2"', true],
    ['its weak form', 'W/"a1b2"', true],
    ['a list holding it', '"x", W/"y" ,"a1b2"', true],
    ['*', '*', true],
    ['* with spaces', ' * ', true],
    ['another tag', '"a1b3"', false],
    ['an unquoted tag', 'a1b2', false],
    ['a tag containing it', '"xa1b2"', false],
    ['an empty field', '', false],
    ['garbage', 'W/"', false],
  ])('%s → %s', (_name, header, expected) => {
    expect(ifNoneMatchMatches(header, ETAG)).toBe(expected);
  });

  it('reads repeated header fields as one list, and no field as no match', () => {
    expect(ifNoneMatchMatches(['"x"', '"a1b2"'], ETAG)).toBe(true);
    expect(ifNoneMatchMatches(undefined, ETAG)).toBe(false);
  });
});
