/**
 * docs/oauth.md "Example: openid-client against the demo clients" and "Signing
 * a member out" as written: demo.mjs, with the logout lines that continue it
 * appended, is written to a file under the checkout's tmp/ (so that
 * `import 'openid-client'` resolves as in an application that installed it)
 * and run by node; the member's part (log in, allow, paste the URL landed on;
 * open the logout URL) is test/helpers/oauth.ts's Browser. Then the curl code
 * exchange with a code and verifier of our own in place of CODE and VERIFIER.
 * http://localhost:8080 becomes the address of this file's server (real app,
 * real HTTP, the demo dataset).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { againstServer, exampleBlock } from '../helpers/markdown-examples.ts';
import { Browser } from '../helpers/oauth.ts';
import { runNode } from './node-script.ts';
import { useShell } from './shell.ts';

const t = useTestApp({ listening: true });
const shell = useShell();
const FOODSAVER = { email: 'foodsaver@example.org', password: DEMO_PASSWORD };

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
});

describe('demo.mjs and the logout lines continuing it', () => {
  test('signs in, reads userinfo, refreshes, revokes; the logout URL ends the session and comes back with state', async () => {
    const demo = exampleBlock('docs/oauth.md', '// demo.mjs');
    const logout = exampleBlock('docs/oauth.md', 'const logoutUrl = client.buildEndSessionUrl(config');
    const file = path.join(shell.cwd, 'demo.mjs');
    await writeFile(file, `${againstServer(demo, t.baseUrl)}${logout.text}`);
    const browser = new Browser(t.baseUrl);
    let authorizationUrl: URL | undefined;
    const result = await runNode(file, async (out) => {
      const url = /log in, allow, then paste the URL you land on:\n (\S+)\n/.exec(out)?.[1];
      if (url === undefined || !out.includes('Callback URL: ')) return undefined;
      authorizationUrl = new URL(url);
      return browser.authorize(url, FOODSAVER);
    });
    expect(result.code, result.err).toBe(0);
    expect(authorizationUrl?.origin).toBe(t.baseUrl);
    expect(result.out).toContain('ID token claims');
    expect(result.out).toMatch(/userinfo \{[^}]*email: 'foodsaver@example\.org'/);
    expect(result.out).toContain('new access token expires in 3600 s');

    const logoutUrl = /Open to log out of the server too:\n (\S+)\n/.exec(result.out)?.[1];
    expect(logoutUrl).toBeDefined();
    const state = new URL(logoutUrl!).searchParams.get('state');
    const back = await browser.follow(logoutUrl!);
    expect(back.location).toBe(`http://localhost:3000/logged-out?state=${state}`);
    const afterwards = await browser.follow(authorizationUrl!.href);
    expect(afterwards.url).toContain('/login');
  });
});

describe('the code exchange with curl', () => {
  test('answers the tokens for a code obtained in the browser', async () => {
    const block = exampleBlock('docs/oauth.md', '-d code_verifier=VERIFIER');
    const config = await client.discovery(new URL(t.baseUrl), 'demo-app', DEMO_CLIENT_SECRET, undefined, { execute: [client.allowInsecureRequests] });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'http://localhost:3000/callback', scope: 'openid profile', code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    const code = new URL(await new Browser(t.baseUrl).authorize(url.href, FOODSAVER)).searchParams.get('code')!;
    const script = againstServer(block, t.baseUrl).replace('code=CODE', `code=${code}`).replace('code_verifier=VERIFIER', `code_verifier=${verifier}`);
    const result = await shell.run(script);
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid profile', access_token: expect.any(String), id_token: expect.any(String), refresh_token: expect.any(String) });
  });
});
