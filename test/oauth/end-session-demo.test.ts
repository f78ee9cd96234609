/**
 * The logout lines of docs/oauth.md ("Signing a member out") as written,
 * against the demo clients: openid-client's buildEndSessionUrl with the ID
 * token, the demo's post-logout redirect URI and a state.
 */
import * as client from 'openid-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { Browser, buildListeningApp } from '../helpers/oauth.ts';
import type { TestApp } from '../helpers/app.ts';

let t: TestApp & { issuer: string };

beforeAll(async () => {
  t = await buildListeningApp();
  await loadDemoData(t.db, t.keys);
});
afterAll(() => t.close());

const DEMOS = [
  ['demo-app', 'http://localhost:3000/callback', 'http://localhost:3000/logged-out'],
  ['demo-spa', 'http://localhost:5173/callback', 'http://localhost:5173/logged-out'],
] as const;

for (const [clientId, redirectUri, postLogoutRedirectUri] of DEMOS) {
  test(`${clientId}: sign in, then log out of the server with openid-client`, async () => {
    const config = await client.discovery(new URL(t.issuer), clientId, clientId === 'demo-app' ? DEMO_CLIENT_SECRET : undefined,
      clientId === 'demo-app' ? undefined : client.None(), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: 'openid profile email', state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const browser = new Browser(t.issuer);
    const callback = await browser.authorize(url.href, { email: 'foodsaver@example.org', password: DEMO_PASSWORD });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state });

    // As in docs/oauth.md:
    const logoutState = client.randomState();
    const logoutUrl = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: postLogoutRedirectUri,
      state: logoutState,
    });

    const { location } = await browser.follow(logoutUrl.href);
    expect(location).toBe(`${postLogoutRedirectUri}?state=${logoutState}`);
    expect(browser.cookies.has('fs_session')).toBe(false);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
}
