/** RFC 6749 §4.1.1: only response_type=code, answered in the query. */
import { describe, expect, test } from 'vitest';
import { checkResponseType } from './response-type.ts';

describe('checkResponseType', () => {
  test.each([
    [{}, 'invalid_request', 'response_type is required.'],
    [{ response_type: 'token' }, 'unsupported_response_type', 'Only response_type=code is supported.'],
    [{ response_type: 'code id_token' }, 'unsupported_response_type', 'Only response_type=code is supported.'],
    [{ response_type: 'code', response_mode: 'fragment' }, 'invalid_request', 'Only response_mode=query is supported.'],
    [{ response_type: 'code', response_mode: 'form_post' }, 'invalid_request', 'Only response_mode=query is supported.'],
  ])('%o → %s', (parameters, error, description) => {
    const checked = checkResponseType(parameters);
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error, error_description: description });
  });

  test.each([[{ response_type: 'code' }], [{ response_type: 'code', response_mode: 'query' }]])('%o passes', (parameters) => {
    expect(checkResponseType(parameters)).toEqual({ ok: true, value: 'code' });
  });
});
