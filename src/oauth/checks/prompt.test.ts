/** OpenID Connect Core §3.1.2.1: prompt values. */
import { describe, expect, test } from 'vitest';
import { checkPrompt } from './prompt.ts';

describe('checkPrompt', () => {
  test.each([
    [undefined, []],
    ['', []],
    ['login', ['login']],
    ['login  consent', ['login', 'consent']],
    ['none', ['none']],
    ['select_account', ['select_account']],
  ])('%j → %j', (prompt, values) => {
    expect(checkPrompt({ prompt })).toEqual({ ok: true, value: new Set(values) });
  });

  test.each([
    ['create', 'Unknown prompt value.'],
    ['login Login', 'Unknown prompt value.'],
    ['none login', 'prompt=none cannot be combined with other values.'],
  ])('%j → invalid_request', (prompt, description) => {
    const checked = checkPrompt({ prompt });
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: description });
  });
});
