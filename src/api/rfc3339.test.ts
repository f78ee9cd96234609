import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from './rfc3339.ts';

describe('parseRfc3339', () => {
  it('reads Z, offsets, fractions and lower case to the same instant', () => {
    const expected = Date.UTC(2026, 10, 21, 13, 0, 0);
    for (const value of ['2026-11-21T13:00:00Z', '2026-11-21t13:00:00z', '2026-11-21T14:00:00+01:00', '2026-11-21T07:30:00-05:30',
      '2026-11-21T13:00:00.0Z', '2026-11-21T13:00:00.000000000+00:00', '2026-11-21T13:00:00-00:00']) {
      expect(parseRfc3339(value)?.date.getTime(), value).toBe(expected);
      expect(parseRfc3339(value)?.hasSubMillisecond, value).toBe(false);
    }
    expect(parseRfc3339('2026-11-21T13:00:00.1234Z')).toEqual({
      date: new Date(Date.UTC(2026, 10, 21, 13, 0, 0, 123)), hasSubMillisecond: true, text: '2026-11-21T13:00:00.1234Z',
    });
    expect(parseRfc3339('2028-02-29T00:00:00Z')?.date.toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(parseRfc3339('0001-01-01T00:00:00Z')?.date.getUTCFullYear()).toBe(1);
  });

  it('refuses what RFC 3339 does not allow or what does not exist', () => {
    for (const value of ['2026-11-21T13:00:00', '2026-11-21', '2026-11-21 13:00:00Z', '2027-02-29T00:00:00Z', '2026-04-31T00:00:00Z',
      '2026-00-10T00:00:00Z', '2026-11-00T00:00:00Z', '2026-11-21T13:00:00+01', '2026-11-21T13:00:00+0100', '2026-11-21T13:00:00+01:60',
      '2026-11-21T13:00:60Z', '+2026-11-21T13:00:00Z', '2026-11-21T13:00:00.Z', ' 2026-11-21T13:00:00Z', '2026-11-21T13:00:00Z\n']) {
      expect(parseRfc3339(value), value).toBeUndefined();
    }
  });
});
