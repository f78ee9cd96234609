/**
 * Pages carry helmet's full set of security headers; JSON answers (OAuth
 * endpoints, discovery, JWKS, /api, health) the short set of the OWASP REST
 * Security Cheat Sheet. Both are computed once at start-up.
 */
import { describe, expect, test } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

const JSON_SET = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

describe('security headers', () => {
  test.each(['/.well-known/jwks.json', '/.well-known/openid-configuration', '/oauth/userinfo', '/api/user/current', '/health'])(
    'JSON answer %s: the short set, nothing of the page set', async (url) => {
      const response = await t.app.inject({ url });
      expect(response.headers['content-type']).toMatch(/json/);
      expect(response.headers).toMatchObject(JSON_SET);
      expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

  test.each([
    ['a malformed URL of a page', '/password/reset/%ZZ', 'text/plain; charset=utf-8', 'The URL is malformed.'],
    ['a malformed URL under /api', '/api/region/%ZZ/pin', 'application/problem+json; charset=utf-8', '{"type":"about:blank","title":"Bad Request","status":400,"detail":"The URL is malformed.","code":"request.invalid"}'],
    ['an over-long path parameter of a page', `/password/reset/${'a'.repeat(3000)}`, 'text/plain; charset=utf-8', 'A path parameter is too long.'],
  ])('refused before routing, %s: the short set too', async (_name, url, type, body) => {
    const response = await t.app.inject({ url });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe(type);
    expect(response.body).toBe(body);
    expect(response.headers).toMatchObject(JSON_SET);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  test.each(['/login', '/no-such-page', '/oauth/authorize?client_id=nope'])('page %s: the full set', async (url) => {
    const response = await t.app.inject({ url });
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
  });
});
