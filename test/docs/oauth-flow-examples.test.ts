/**
 * docs/oauth.md's pushed authorization requests (the curl command, par.mjs
 * with openid-client, par-oauth4webapi.mjs) and step-up (step-up.mjs) as
 * written, against a listening server with the demo dataset: the scripts run
 * by node (test/docs/node-script.ts), the member's part in test/helpers/oauth.ts's
 * Browser, http://localhost:8080 replaced by this server's address.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../src/demo/demo-data.ts';
import { DEMO_CLIENT_SECRET } from '../../src/demo/demo-oauth.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { exampleBlock } from '../helpers/markdown-examples.ts';
import { codeAt, enrol } from '../helpers/one-time-codes.ts';
import { Browser, formFields, TEST_VERIFIER } from '../helpers/oauth.ts';
import { pasteCallback, runNode, writeScript } from './node-script.ts';
import { runCurlAsShown, useShell } from './shell.ts';

// Frozen (the one-time codes of a time step are known) at the real time (the libraries check the tokens' times).
const clock = new FrozenClock(new Date());
const t = useTestApp({ listening: true, clock });
const shell = useShell();
const FOODSAVER = { email: 'foodsaver@example.org', password: DEMO_PASSWORD };
const URN = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/;
let foodsaverId: string;

beforeAll(async () => {
  await loadDemoData(t.db, t.keys);
  foodsaverId = String((await t.db.selectFrom('users').select('id').where('email', '=', FOODSAVER.email).executeTakeFirstOrThrow()).id);
});

describe('the pushed authorization request with curl', () => {
  test('answers 201, no-store, a request_uri valid 60 s; the browser brings it to a code the documented verifier redeems', async () => {
    const block = exampleBlock('docs/oauth.md', 'curl -si http://localhost:8080/oauth/par');
    expect(block.text).toContain(`code_challenge=${createHash('sha256').update(TEST_VERIFIER).digest('base64url')} `);
    const answer = await runCurlAsShown(shell, block, t.baseUrl) as { request_uri: string; expires_in: number };
    expect(answer).toEqual({ request_uri: expect.stringMatching(URN), expires_in: 60 });

    const authorize = `${t.baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: 'demo-app', request_uri: answer.request_uri })}`;
    const callback = new URL(await new Browser(t.baseUrl).authorize(authorize, FOODSAVER));
    expect(`${callback.origin}${callback.pathname}`).toBe('http://localhost:3000/callback');
    expect(callback.searchParams.get('state')).toBe('af0ifjsldkj');
    expect(callback.searchParams.get('iss')).toBe(t.baseUrl);
    const exchange = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`demo-app:${DEMO_CLIENT_SECRET}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: 'http://localhost:3000/callback', code_verifier: TEST_VERIFIER }),
    });
    expect(exchange.status).toBe(200);
    expect(await exchange.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid email' });
  });
});

describe('the pushed authorization request scripts', () => {
  const scripts = {
    'par.mjs': () => exampleBlock('docs/oauth.md', '// par.mjs'),
    'par-oauth4webapi.mjs': () => exampleBlock('docs/oauth.md', '// par-oauth4webapi.mjs'),
  };
  for (const [name, block] of Object.entries(scripts)) {
    test(`${name}: the browser carries client_id and request_uri only; the member signs in`, async () => {
      const file = await writeScript(shell.cwd, name, block(), t.baseUrl);
      let sent: URL | undefined;
      const result = await runNode(file, pasteCallback((url) => {
        sent = new URL(url);
        return new Browser(t.baseUrl).authorize(url, FOODSAVER);
      }));
      expect(result.code, result.err).toBe(0);
      expect(`${sent!.origin}${sent!.pathname}`).toBe(`${t.baseUrl}/oauth/authorize`);
      expect([...sent!.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      expect(sent!.searchParams.get('request_uri')).toMatch(URN);
      expect(result.out).toContain(`signed in as ${foodsaverId} with scope openid email\n`);
    });
  }
});

describe('step-up.mjs', () => {
  const MANAGER = { email: 'storemanager@example.org', password: DEMO_PASSWORD };

  test('a member with one-time codes is asked for one; the script gets acr mfa and amr pwd otp mfa', async () => {
    const session = await t.logIn(MANAGER);
    // Enrolled with the previous time step's code, so that the sign-in's code (this step's) is a new one.
    const { secret } = await enrol(t.app, session, new Date(clock.now().getTime() - 30_000));
    const file = await writeScript(shell.cwd, 'step-up.mjs', exampleBlock('docs/oauth.md', '// step-up.mjs'), t.baseUrl);
    let askedForCode = false;
    const result = await runNode(file, pasteCallback(async (url) => {
      const browser = new Browser(t.baseUrl);
      const login = await browser.follow(url);
      const second = await browser.logIn(login.url, MANAGER);
      askedForCode = new URL(second.url).pathname === '/login/second-factor';
      await browser.follow('/login/second-factor', { form: { ...formFields(await second.response.text()), code: codeAt(secret, clock.now()) } });
      return browser.authorize(url, MANAGER);
    }));
    expect(result.code, result.err).toBe(0);
    expect(askedForCode).toBe(true);
    expect(result.out).toContain(`signed in with pwd otp mfa at ${clock.now().toISOString().replace(/\.\d{3}Z$/, '.000Z')}\n`);
  });

  test('a member without a second factor: the script stops with unmet_authentication_requirements', async () => {
    const file = await writeScript(shell.cwd, 'step-up.mjs', exampleBlock('docs/oauth.md', '// step-up.mjs'), t.baseUrl);
    let landed: URL | undefined;
    const result = await runNode(file, pasteCallback(async (url) => {
      const callback = await new Browser(t.baseUrl).authorize(url, FOODSAVER);
      landed = new URL(callback);
      return callback;
    }));
    expect(landed!.searchParams.get('error')).toBe('unmet_authentication_requirements');
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('unmet_authentication_requirements');
  });
});
