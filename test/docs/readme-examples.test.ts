/**
 * The README's (and docs/api.md's) examples against a running server, run by
 * bash as written, http://localhost:8080 replaced by this server's address:
 * the curl login, read and write of the REST API, and `oauth try` for the
 * demo client and for another confidential one. The server is the real app
 * on real HTTP with the demo dataset (in-process, on PGlite or, with
 * TEST_DATABASE_URL, PostgreSQL); `oauth try` opens no database, so it runs
 * beside it as the README says. Its PUBLIC_URL (the default issuer of
 * `oauth try`) is this server's, given in the environment. A member's part
 * of a sign-in is test/helpers/oauth.ts's Browser.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { againstServer, exampleBlock, type ExampleBlock } from '../helpers/markdown-examples.ts';
import { holdingPort } from '../helpers/machine-port.ts';
import { Browser } from '../helpers/oauth.ts';
import { addClientAsDocumentedJson, commandLines } from './documented-client.ts';
import { useShell } from './shell.ts';

const t = useTestApp({ listening: true });
const shell = useShell();
const FOODSHARER = { email: 'foodsharer@example.org', password: DEMO_PASSWORD };
const FOODSAVER = { email: 'foodsaver@example.org', password: DEMO_PASSWORD };
const WRITTEN = 'Zwei Laibe Sauerteigbrot, noch heute abzuholen.';

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
});

async function basketDescription(): Promise<string> {
  const response = await t.call('GET', '/api/baskets/1', await t.logIn(FOODSHARER));
  expect(response.statusCode).toBe(200);
  return (response.json() as { description: string }).description;
}

async function runCurlExample(block: ExampleBlock) {
  await t.db.updateTable('baskets').set({ description: 'Brot von gestern.' }).where('id', '=', 1).execute();
  const result = await shell.run(againstServer(block, t.baseUrl));
  expect(result.code, result.err).toBe(0);
  return result.out;
}

describe('the REST API with curl', () => {
  for (const block of [exampleBlock('README.md', '# 3. Write: change its description, with the X-CSRF-Token header.'),
    exampleBlock('docs/api.md', '# 3. Write: change its description; needs the X-CSRF-Token header.')]) {
    test(`${block.file}:${block.line} logs in, reads basket 1 and changes its description`, async () => {
      const out = await runCurlExample(block);
      expect(out).toContain('"email":"foodsharer@example.org"');
      expect(out).toContain('"description":"Brot von gestern."');
      expect(out).toContain(`"description":"${WRITTEN}"`);
      expect(await basketDescription()).toBe(WRITTEN);
    });
  }

  test('without the X-CSRF-Token header the write answers 403 auth.csrf-invalid and changes nothing (docs/api.md)', async () => {
    const block = exampleBlock('docs/api.md', '# 3. Write: change its description; needs the X-CSRF-Token header.');
    const withoutHeader = { ...block, text: block.text.replace('-H "X-CSRF-Token: $CSRF" ', '-w \'\\n%{http_code}\\n\' ') };
    expect(withoutHeader.text).not.toContain('X-CSRF-Token: $CSRF');
    const out = await runCurlExample(withoutHeader);
    expect(out).toContain('"code":"auth.csrf-invalid"');
    expect(out.trimEnd().endsWith('\n403')).toBe(true);
    expect(await basketDescription()).toBe('Brot von gestern.');
  });
});

describe('oauth try', () => {
  /** Runs the example, which listens on `port` (its redirect URI's, as documented), and signs in through it. */
  async function signInThrough(script: string, env: Record<string, string>, port: number) {
    return holdingPort(port, async () => {
      const running = shell.start(script, { PUBLIC_URL: t.baseUrl, DATA_DIR: shell.cwd, ...env });
      const [, url] = await running.waitFor(/\n {2}(http\S+\/oauth\/authorize\?\S+)\n/);
      const callback = await new Browser(t.baseUrl).authorize(url!, FOODSAVER);
      const page = await fetch(callback);
      expect(await page.text()).toContain('Signed in as foodsaver@example.org. You can close this tab');
      const result = await running.exited;
      expect(result.code, result.err).toBe(0);
      return { url: new URL(url!), callback: new URL(callback), out: result.out };
    });
  }

  test('`npm run -s cli -- oauth try` signs a demo member in through demo-app and prints the claims and userinfo', async () => {
    const block = exampleBlock('README.md', 'npm run -s cli -- oauth try\n');
    expect(block.text).toBe('npm run -s cli -- oauth try\n');
    const { url, callback, out } = await signInThrough(block.text, {}, 3000);
    expect(url.origin).toBe(t.baseUrl);
    expect(url.searchParams.get('client_id')).toBe('demo-app');
    expect(`${callback.origin}${callback.pathname}`).toBe('http://127.0.0.1:3000/callback');
    expect(out).toContain('Userinfo response:');
    expect(out).toContain('foodsaver@example.org');
  });

  test('another confidential client, its secret on standard input', async () => {
    // Registered as the README registers it (its command, inside `SECRET=$(… | jq -r .secret)`).
    const registration = commandLines(exampleBlock('README.md', 'SECRET=$(npm run -s cli -- client add --client-id wiki-try').text);
    expect(registration).toHaveLength(1);
    const command = /^SECRET=\$\((npm run -s cli -- client add .* --json) \| jq -r \.secret\)$/.exec(registration[0]!)?.[1];
    expect(command).toBeDefined();
    const { secret } = await addClientAsDocumentedJson(t, command!, process.cwd()) as { secret: string };
    const block = exampleBlock('README.md', '"$SECRET" | npm run -s cli -- oauth try --client wiki-try');
    const { url, callback, out } = await signInThrough(block.text, { SECRET: secret }, 8000);
    expect(url.searchParams.get('client_id')).toBe('wiki-try');
    expect(`${callback.origin}${callback.pathname}`).toBe('http://127.0.0.1:8000/callback');
    expect(out).toContain('Userinfo response:');
    expect(out).not.toContain(secret);
  });
});
