/** CORS for browser clients on token, userinfo, revoke, PAR, discovery and JWKS (also on errors). */
import { beforeAll, describe, expect, test } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';

const SPA = 'https://spa.example';
const t = useTestApp();

beforeAll(async () => {
  await makeClient(t, { confidential: false, redirectUris: [`${SPA}/callback`, 'http://localhost:5173/cb'] });
});

describe('CORS', () => {
  test('preflight on token, userinfo, revoke and PAR answers registered origins only', async () => {
    for (const url of ['/oauth/token', '/oauth/userinfo', '/oauth/revoke', '/oauth/par']) {
      const ok = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: SPA, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
      expect(ok.statusCode).toBe(204);
      expect(ok.headers['access-control-allow-origin']).toBe(SPA);
      expect(ok.headers['access-control-allow-methods']).toContain('POST');
      expect(String(ok.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
      expect(ok.headers.vary).toContain('Origin');
      const other = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    }
    const loopback = await t.app.inject({ method: 'OPTIONS', url: '/oauth/token', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' } });
    expect(loopback.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  test('error responses carry the CORS headers too', async () => {
    const token = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { origin: SPA, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'grant_type=authorization_code' });
    expect(token.statusCode).toBe(401);
    expect(token.headers['access-control-allow-origin']).toBe(SPA);
    const userinfo = await t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { origin: SPA } });
    expect(userinfo.statusCode).toBe(401);
    expect(userinfo.headers['access-control-allow-origin']).toBe(SPA);
    expect(String(userinfo.headers['access-control-expose-headers'])).toContain('WWW-Authenticate');
    const revoke = await t.app.inject({ method: 'POST', url: '/oauth/revoke', headers: { origin: SPA, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'token=x' });
    expect(revoke.headers['access-control-allow-origin']).toBe(SPA);
    const par = await t.app.inject({ method: 'POST', url: '/oauth/par', headers: { origin: SPA, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'client_id=nobody' });
    expect(par.statusCode).toBe(401);
    expect(par.headers['access-control-allow-origin']).toBe(SPA);
    const foreign = await t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { origin: 'https://evil.example' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('discovery and JWKS are open to every origin', async () => {
    for (const url of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json']) {
      // Publicly cacheable: a copy fetched without Origin must still satisfy a browser later.
      const plain = await t.app.inject({ method: 'GET', url });
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['access-control-allow-origin']).toBe('*');
      const response = await t.app.inject({ method: 'GET', url, headers: { origin: 'https://anyone.example' } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      const preflight = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: 'https://anyone.example', 'access-control-request-method': 'GET' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
    }
  });

  test('introspection and device authorization answer no preflight, and their 405 does not offer OPTIONS', async () => {
    for (const url of ['/oauth/introspect', '/oauth/device_authorization']) {
      const preflight = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: SPA, 'access-control-request-method': 'POST' } });
      expect(preflight.statusCode).toBe(404);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const put = await t.app.inject({ method: 'PUT', url });
      expect(put.statusCode).toBe(405);
      expect(put.headers.allow).toBe('POST');
    }
  });

  test('the authorization endpoint is not CORS-enabled (it is a browser navigation)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=x', headers: { origin: SPA } });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
