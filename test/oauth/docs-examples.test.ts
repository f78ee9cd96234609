/**
 * docs/oauth.md's openid-client examples work as written against an http:
 * issuer like the development server: the introspection block (taken from
 * the document, run with the real openid-client) and the public demo
 * client's scopes (`regions` is not among them: `invalid_scope`).
 */
import * as client from 'openid-client';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { DOCUMENTED_URL, exampleBlock } from '../helpers/markdown-examples.ts';
import { Browser } from '../helpers/oauth.ts';

const t = useTestApp({ listening: true });
const FABIAN = { email: 'foodsaver@example.org', password: DEMO_PASSWORD };

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
});

/** The ```js block of docs/oauth.md whose first line names introspect.mjs, without its import line. */
function documentedIntrospection(): string {
  const [imports, ...code] = exampleBlock('docs/oauth.md', '// introspect.mjs').text.split('\n').slice(1);
  expect(imports).toBe("import * as client from 'openid-client';");
  return code.join('\n');
}

type Run = (openidClient: typeof client, accessToken: string) => Promise<{ active: boolean; sub?: string; scope?: string }>;

/** Runs the documented block with the real openid-client, against this server instead of localhost:8080. */
function runDocumented(code: string, accessToken: string) {
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => Run;
  const body = `${code.replaceAll(DOCUMENTED_URL, t.baseUrl)}\nreturn { active, sub, scope };`;
  return new AsyncFunction('client', 'accessToken', body)(client, accessToken);
}

async function signIn(clientId: string, secret: string | undefined, redirectUri: string, scope: string) {
  const config = await client.discovery(new URL(t.baseUrl), clientId, secret, secret ? undefined : client.None(), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope, state, code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const callback = new URL(await new Browser(t.baseUrl).authorize(url.href, FABIAN));
  return { config, callback, verifier, state };
}

describe('introspection with openid-client', () => {
  test('the documented block answers for a live access token', async () => {
    const { config, callback, verifier, state } = await signIn('demo-app', DEMO_CLIENT_SECRET, 'http://localhost:3000/callback', 'openid profile');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    const answer = await runDocumented(documentedIntrospection(), tokens.access_token);
    expect(answer).toEqual({ active: true, sub: tokens.claims()!.sub, scope: 'openid profile' });
  });

  test('without allowInsecureRequests it fails before reaching an http: issuer, as the document says', async () => {
    const withoutOption = documentedIntrospection().replace(", { execute: [client.allowInsecureRequests] }", '');
    expect(withoutOption).not.toContain('allowInsecureRequests');
    await expect(runDocumented(withoutOption, 'any')).rejects.toThrow(/HTTPS/i);
  });
});

describe('the public demo client', () => {
  test('signs in with the documented scope "openid profile email"', async () => {
    const { config, callback, verifier, state } = await signIn('demo-spa', undefined, 'http://localhost:5173/callback', 'openid profile email');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.scope).toBe('openid profile email');
  });

  test('asking for regions answers invalid_scope', async () => {
    const { callback } = await signIn('demo-spa', undefined, 'http://localhost:5173/callback', 'openid profile email regions');
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
  });
});
