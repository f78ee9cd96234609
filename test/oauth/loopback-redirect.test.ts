/**
 * A native app's loopback redirect URI (RFC 8252 §7.3): registered without a
 * port (or with one), it matches whatever port the app's listener got, for
 * the IP literals 127.0.0.1 and [::1]; path and query still exactly. The code
 * is sent to the port asked for, and the exchange must name the same URI.
 * `localhost` keeps exact matching (RFC 8252 §8.3). Only for a public
 * client (RFC 8252 §8.4): a confidential client's URI matches with its port.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let session: TestSession;
let nativeApp: string;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
  nativeApp = (await makeClient(t, { confidential: false, redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback', 'http://localhost:3000/callback'] })).clientId;
});

function exchange(code: string, redirectUri: string) {
  return tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: nativeApp, code_verifier: TEST_VERIFIER });
}

describe('loopback redirect URIs of a native app', () => {
  test.each(['http://127.0.0.1:54321/callback', 'http://127.0.0.1/callback', 'http://[::1]:61000/callback'])('%s: the code goes to that port and is exchanged with the same URI', async (redirectUri) => {
    const code = await obtainCode(t, { clientId: nativeApp, cookie: session.cookie, redirectUri, scope: 'openid' });
    const tokens = await exchange(code, redirectUri);
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String) });
  });

  test('the authorization response goes to the port of the request', async () => {
    const query = new URLSearchParams({ response_type: 'code', client_id: nativeApp, redirect_uri: 'http://127.0.0.1:49152/callback', scope: 'openid', state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    const consent = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: session.cookie } });
    expect(consent.statusCode).toBe(200);
    const denied = await t.app.inject({ url: `/oauth/authorize?${query}&prompt=none`, headers: { cookie: session.cookie } });
    expect(String(denied.headers.location)).toMatch(/^http:\/\/127\.0\.0\.1:49152\/callback\?error=consent_required&/);
  });

  test('the exchange must name the port the code was sent to (RFC 6749 §4.1.3)', async () => {
    const code = await obtainCode(t, { clientId: nativeApp, cookie: session.cookie, redirectUri: 'http://127.0.0.1:54321/callback', scope: 'openid' });
    const tokens = await exchange(code, 'http://127.0.0.1:54322/callback');
    expect(tokens.statusCode).toBe(400);
    expect(tokens.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('a confidential client\'s loopback URI matches with its port only (a web server\'s port does not move): "Invalid redirect_uri", no redirect', async () => {
    const webApp = (await makeClient(t, { redirectUris: ['http://127.0.0.1:3000/callback', 'http://[::1]/callback'] })).clientId;
    for (const uri of ['http://127.0.0.1:5173/callback', 'http://127.0.0.1/callback', 'http://[::1]:3000/callback']) {
      const query = new URLSearchParams({ response_type: 'code', client_id: webApp, redirect_uri: uri, scope: 'openid', state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      const response = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: session.cookie, 'accept-language': 'en' } });
      expect(response.statusCode, uri).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('Invalid redirect_uri');
    }
    const code = await obtainCode(t, { clientId: webApp, cookie: session.cookie, redirectUri: 'http://127.0.0.1:3000/callback', scope: 'openid' });
    expect(code).toEqual(expect.any(String));
  });

  test('another path, a query, https, or localhost on another port: "Invalid redirect_uri", no redirect', async () => {
    for (const uri of ['http://127.0.0.1:54321/callback/', 'http://127.0.0.1:54321/callback?x=1', 'https://127.0.0.1:54321/callback', 'http://localhost:3001/callback', 'http://localhost/callback', 'http://127.0.0.1:99999/callback']) {
      const query = new URLSearchParams({ response_type: 'code', client_id: nativeApp, redirect_uri: uri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      const response = await t.app.inject({ url: `/oauth/authorize?${query}`, headers: { cookie: session.cookie, 'accept-language': 'en' } });
      expect(response.statusCode, uri).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toContain('Invalid redirect_uri');
    }
  });
});
