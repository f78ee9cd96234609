/** RFC 9449 §10: dpop_jkt is a SHA-256 JWK thumbprint, or absent. */
import { describe, expect, test } from 'vitest';
import { checkDpopJkt } from './dpop-jkt.ts';

describe('checkDpopJkt', () => {
  const thumbprint = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

  test.each([[undefined, null], [thumbprint, thumbprint]])('%j passes', (dpop_jkt, value) => {
    expect(checkDpopJkt({ dpop_jkt })).toEqual({ ok: true, value });
  });

  test.each(['', 'short', `${thumbprint}=`, `${thumbprint.slice(1)}+`, `${thumbprint}A`])('%j is refused', (dpop_jkt) => {
    const checked = checkDpopJkt({ dpop_jkt });
    expect(checked.ok ? undefined : checked.error.toJSON()).toEqual({
      error: 'invalid_request', error_description: 'dpop_jkt must be a SHA-256 JWK thumbprint (43 base64url characters).',
    });
  });
});
