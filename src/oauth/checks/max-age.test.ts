/** OpenID Connect Core §3.1.2.1: max_age in whole seconds. */
import { describe, expect, test } from 'vitest';
import { checkMaxAge } from './max-age.ts';

describe('checkMaxAge', () => {
  test.each([[undefined, undefined], ['0', 0], ['3600', 3600], ['999999999', 999999999]])('%j → %j', (maxAge, value) => {
    expect(checkMaxAge({ max_age: maxAge })).toEqual({ ok: true, value });
  });

  test.each(['', '-1', '1.5', '1e3', ' 60', '1000000000'])('%j → invalid_request', (maxAge) => {
    const checked = checkMaxAge({ max_age: maxAge });
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: 'max_age must be a whole number of seconds.' });
  });
});
