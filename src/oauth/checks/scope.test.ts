/** RFC 6749 §3.3 and OpenID Connect Core §3.1.2.1: openid, known scopes, those the client holds. */
import { describe, expect, test } from 'vitest';
import { checkRequestedScopes } from './scope.ts';

const ALLOWED = ['openid', 'profile', 'email'];

describe('checkRequestedScopes', () => {
  test('canonical order, without duplicates', () => {
    expect(checkRequestedScopes('email  openid profile email', ALLOWED)).toEqual({ ok: true, value: ['openid', 'profile', 'email'] });
  });

  test.each([
    [undefined, 'The scope must include openid.'],
    ['profile', 'The scope must include openid.'],
    ['openid admin', 'Unknown scope: admin'],
    ['openid "bad\u00e9', 'Unknown scope: ?bad?'],
    ['openid regions', 'Scope not allowed for this client: regions'],
  ])('%j → invalid_scope', (scope, description) => {
    const checked = checkRequestedScopes(scope, ALLOWED);
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_scope', error_description: description });
  });
});
