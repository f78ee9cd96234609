/** OpenID Connect Core §3.1.2.1: an id_token_hint must be an ID token of ours, issued to the requesting client. */
import { describe, expect, test } from 'vitest';
import { checkIdTokenHint, idTokenHintOf } from './id-token-hint.ts';

describe('idTokenHintOf', () => {
  test.each([[undefined, undefined], ['', undefined], ['a.b.c', 'a.b.c']])('%j is %j', (hint, expected) => {
    expect(idTokenHintOf({ id_token_hint: hint })).toBe(expected);
  });
});

describe('checkIdTokenHint', () => {
  test('a hint issued to this client gives its sub', () => {
    expect(checkIdTokenHint({ clientId: 'wiki', sub: '42', sid: 's' }, 'wiki')).toEqual({ ok: true, value: '42' });
  });

  test.each([
    ['not an ID token of ours', undefined, 'id_token_hint is no ID token of this server'],
    ['issued to another client', { clientId: 'chat', sub: '42', sid: undefined }, 'id_token_hint was issued to chat'],
  ])('a hint %s is invalid_request', (_case, verified, detail) => {
    const checked = checkIdTokenHint(verified, 'wiki');
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: 'Invalid id_token_hint.' });
    expect(checked.ok ? undefined : checked.error.detail).toBe(detail);
  });
});
