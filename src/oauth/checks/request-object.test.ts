/** OpenID Connect Core §6.2: request objects are refused, not ignored. */
import { describe, expect, test } from 'vitest';
import { checkRequestObject } from './request-object.ts';

describe('checkRequestObject', () => {
  test.each([
    [{ request: 'eyJ...' }, 'request_not_supported', 'Request objects are not supported.'],
    [{ request_uri: 'https://x.example/r' }, 'request_uri_not_supported', 'request_uri is not supported.'],
    [{ request: 'a', request_uri: 'b' }, 'request_not_supported', 'Request objects are not supported.'],
  ])('%o → %s', (parameters, error, description) => {
    const checked = checkRequestObject(parameters);
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error, error_description: description });
  });

  test('a request without one passes', () => {
    expect(checkRequestObject({ response_type: 'code' }).ok).toBe(true);
  });
});
