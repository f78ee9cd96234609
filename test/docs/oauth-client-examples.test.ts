/**
 * docs/oauth.md's examples of clients registered with a CLI command of their
 * own, as written against a listening server with the demo dataset: the
 * device authorization grant (the client `fridge`: curl, device.mjs),
 * client authentication with a key (keygen.mjs, the client `reports`,
 * private-key-jwt.mjs), ES256 ID tokens (the client `maps`, es256.mjs), and
 * DPoP with the public demo client (dpop.mjs). The registrations run on the
 * server's database as the CLI runs them (documented-client.ts); the scripts
 * run by node, the member's part in test/helpers/oauth.ts's Browser. DPoP
 * nonces are required, so that dpop.mjs's retry is exercised.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { againstServer, exampleBlock, shownOutput, type ExampleBlock } from '../helpers/markdown-examples.ts';
import { Browser, formFields } from '../helpers/oauth.ts';
import { addClientAsDocumented, commandLines } from './documented-client.ts';
import { pasteCallback, runNode, writeScript } from './node-script.ts';
import { runCurlAsShown, useShell } from './shell.ts';

const t = useTestApp({ listening: true, env: { DPOP_NONCE_REQUIRED: 'true' } });
const shell = useShell();
const FOODSAVER = { email: 'foodsaver@example.org', password: DEMO_PASSWORD };
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let foodsaverId: string;

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
  foodsaverId = String((await t.db.selectFrom('users').select('id').where('email', '=', FOODSAVER.email).executeTakeFirstOrThrow()).id);
});

/** Registers the client of a documented `npm run cli -- client add` block (its only command). */
async function register(block: ExampleBlock): Promise<string[]> {
  const lines = commandLines(block.text);
  expect(lines).toHaveLength(1);
  return addClientAsDocumented(t, lines[0]!, shell.cwd);
}

const signInAsFoodsaver = pasteCallback((url) => new Browser(t.baseUrl).authorize(url, FOODSAVER));

/** The member's part at /device: opens the complete verification URI, confirms the code, logs in, allows. */
async function approveDevice(verificationUriComplete: string, userCode: string) {
  const browser = new Browser(t.baseUrl, 'en');
  const entry = await browser.request(verificationUriComplete);
  expect(entry.status).toBe(200);
  const check = await browser.follow('/device', { form: { ...formFields(await entry.text()), user_code: userCode, step: 'check' } });
  const confirmPage = await check.response.text();
  expect(confirmPage).toContain('Is this the code on your device?');
  const confirmed = await browser.follow('/device', { form: { ...formFields(confirmPage), user_code: userCode, step: 'confirm' } });
  expect(new URL(confirmed.url).pathname).toBe('/login');
  const consent = await browser.logIn(confirmed.url, FOODSAVER);
  expect(new URL(consent.url).pathname).toBe('/device/approve');
  const done = await browser.follow('/device/approve', { form: { ...formFields(await consent.response.text()), decision: 'allow' } });
  expect(await done.response.text()).toContain('You may return to your device.');
}

describe('devices without a browser', () => {
  beforeAll(async () => {
    expect(await register(exampleBlock('docs/oauth.md', 'npm run cli -- client add --client-id fridge'))).toEqual(['Client fridge created (public).']);
  });

  test('the device authorization request with curl answers as shown; the member approves and the device code redeems', async () => {
    const block = exampleBlock('docs/oauth.md', 'curl -si http://localhost:8080/oauth/device_authorization');
    const started = await runCurlAsShown(shell, block, t.baseUrl);
    const userCode = started.user_code as string;
    expect(started).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), user_code: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/),
      verification_uri: `${t.baseUrl}/device`, verification_uri_complete: `${t.baseUrl}/device?user_code=${userCode}`, expires_in: 600, interval: 5,
    });
    // The body shown has the same members, with the documented server's URL.
    const shown = shownOutput(block).text.split('\n');
    const shownBody = JSON.parse(againstServer({ ...block, text: shown.slice(shown.indexOf('') + 1).join('\n') }, t.baseUrl)) as Record<string, unknown>;
    expect(Object.keys(shownBody).sort()).toEqual(Object.keys(started).sort());
    expect(shownBody.verification_uri).toBe(started.verification_uri);

    await approveDevice(started.verification_uri_complete as string, userCode);
    const tokens = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: started.device_code as string, client_id: 'fridge' }),
    });
    expect(tokens.status).toBe(200);
    expect(await tokens.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid profile', id_token: expect.any(String), refresh_token: expect.any(String) });
  });

  test('device.mjs prints the code, waits for the member and gets an ID token and a refresh token', async () => {
    const file = await writeScript(shell.cwd, 'device.mjs', exampleBlock('docs/oauth.md', '// device.mjs'), t.baseUrl);
    const result = await runNode(file, async (out) => {
      const shown = /Open (\S+) and enter (\S+)\n/.exec(out);
      if (!shown) return undefined;
      expect(shown[1]).toBe(`${t.baseUrl}/device`);
      await approveDevice(`${shown[1]}?user_code=${shown[2]}`, shown[2]!);
      return '';
    });
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain(`signed in as ${foodsaverId} refresh token: true\n`);
  }, 30_000);
});

describe('client authentication with a key', () => {
  test('keygen.mjs, the registration and private-key-jwt.mjs sign the member in with an ES256 client assertion', async () => {
    const keygen = await writeScript(shell.cwd, 'keygen.mjs', exampleBlock('docs/oauth.md', '// keygen.mjs'), t.baseUrl);
    const generated = await runNode(keygen);
    expect(generated.code, generated.err).toBe(0);
    const [runKeygen, add, ...rest] = commandLines(exampleBlock('docs/oauth.md', '--token-endpoint-auth-method private_key_jwt --jwks-file').text);
    expect([runKeygen, rest]).toEqual(['node keygen.mjs', []]);
    expect(await addClientAsDocumented(t, add!, shell.cwd)).toEqual(['Client reports created (confidential).']);

    const file = await writeScript(shell.cwd, 'private-key-jwt.mjs', exampleBlock('docs/oauth.md', '// private-key-jwt.mjs'), t.baseUrl);
    const result = await runNode(file, signInAsFoodsaver);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain(`signed in as ${foodsaverId}\n`);
  });
});

describe('ES256 ID tokens', () => {
  beforeAll(async () => {
    expect(await register(exampleBlock('docs/oauth.md', 'npm run cli -- client add --client-id maps'))).toEqual(['Client maps created (public).']);
  });

  test('es256.mjs validates the ID token, ES256 and signed by a key of the JWKS', async () => {
    const file = await writeScript(shell.cwd, 'es256.mjs', exampleBlock('docs/oauth.md', '// es256.mjs'), t.baseUrl);
    const result = await runNode(file, signInAsFoodsaver);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain(`sub: '${foodsaverId}'`);
  });

  test('expecting RS256 instead, the same script refuses the ID token: it is ES256', async () => {
    const file = await writeScript(shell.cwd, 'rs256.mjs', exampleBlock('docs/oauth.md', '// es256.mjs'), t.baseUrl,
      (text) => text.replace("id_token_signed_response_alg: 'ES256'", "id_token_signed_response_alg: 'RS256'"));
    const result = await runNode(file, signInAsFoodsaver);
    expect(result.code).not.toBe(0);
    expect(result.err).toMatch(/unexpected JWT "alg" header parameter/);
  });
});

describe('DPoP with oauth4webapi', () => {
  test('dpop.mjs gets DPoP-bound tokens, reads userinfo and refreshes, retrying for the nonces the server requires', async () => {
    const file = await writeScript(shell.cwd, 'dpop.mjs', exampleBlock('docs/oauth.md', '// dpop.mjs'), t.baseUrl);
    const result = await runNode(file, signInAsFoodsaver);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('token type dpop\n');
    expect(result.out).toMatch(new RegExp(`userinfo \\{[^}]*sub: '${foodsaverId}'`));
    expect(result.out).toContain('refreshed, token type dpop\n');
  });
});
