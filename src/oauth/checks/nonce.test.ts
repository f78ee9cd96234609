/** OpenID Connect Core §3.1.2.1: the nonce, bounded; empty is none. */
import { describe, expect, test } from 'vitest';
import { checkNonce, MAX_NONCE_LENGTH } from './nonce.ts';

describe('checkNonce', () => {
  test.each([[undefined, null], ['', null], ['n-0S6_WzA2Mj', 'n-0S6_WzA2Mj'], ['n'.repeat(MAX_NONCE_LENGTH), 'n'.repeat(MAX_NONCE_LENGTH)]])('%j passes', (nonce, value) => {
    expect(checkNonce({ nonce })).toEqual({ ok: true, value });
  });

  test('a longer nonce is refused', () => {
    const checked = checkNonce({ nonce: 'n'.repeat(MAX_NONCE_LENGTH + 1) });
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({ error: 'invalid_request', error_description: 'nonce is too long.' });
  });
});
