/**
 * The demo dataset's confidential and public clients
 * work with openid-client exactly as README and docs/oauth.md show.
 */
import * as client from 'openid-client';
import { beforeAll, expect, test } from 'vitest';
import { DEMO_PASSWORD, describeDemoLogins, loadDemoData, type DemoSummary } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser } from '../helpers/oauth.ts';

const t = useTestApp({ listening: true });
let summary: DemoSummary;

beforeAll(async () => {
  summary = await loadDemoData(t.db, t.keys);
});

test('the demo summary lists both clients and the confidential secret', () => {
  expect(summary.oauthClients.map((c) => [c.clientId, c.confidential, c.secret])).toEqual([
    ['demo-app', true, DEMO_CLIENT_SECRET], ['demo-spa', false, null],
  ]);
  const lines = describeDemoLogins(summary).join('\n');
  expect(lines).toContain('demo-app');
  expect(lines).toContain(DEMO_CLIENT_SECRET);
});

for (const [clientId, redirectUri] of [['demo-app', 'http://localhost:3000/callback'], ['demo-spa', 'http://localhost:5173/callback']] as const) {
  test(`${clientId}: sign in with openid-client`, async () => {
    const config = await client.discovery(new URL(t.baseUrl), clientId, clientId === 'demo-app' ? DEMO_CLIENT_SECRET : undefined,
      clientId === 'demo-app' ? undefined : client.None(), { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: 'openid profile email', state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const callback = await new Browser(t.baseUrl).authorize(url.href, { email: 'foodsaver@example.org', password: DEMO_PASSWORD });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedState: state });
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info).toMatchObject({ given_name: 'Fabian', family_name: 'Retter', email: 'foodsaver@example.org', email_verified: true });
    expect(tokens.refresh_token).toBeTypeOf('string');
  });
}
