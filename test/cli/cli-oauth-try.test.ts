/**
 * `oauth try` end to end: the server on real HTTP, the CLI's bin as a real
 * process listening on the client's loopback redirect URI, and a minimal
 * cookie-keeping browser that opens the printed URL, logs in and answers the
 * consent page; the browser's redirect lands at the CLI, which exchanges the
 * code and prints the claims.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { Browser, freePort, makeClient } from '../helpers/oauth.ts';
import { BIN, makeDataDir, runInProcess } from './cli-helpers.ts';

const t = useTestApp({ listening: true });
let user: TestUser;
let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  user = await makeUser(t.db, { email: 'try@example.test', firstName: 'Tilda' });
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
});
afterAll(async () => {
  await remove();
});

/** Starts `oauth try` (standard input `input`, closed after; empty by default); resolves the printed authorization URL as soon as it appears on `stream`. */
function startTry(argv: string[], urlOn: 'stdout' | 'stderr', options: { input?: string; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [BIN, 'oauth', 'try', ...argv], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.input ?? '');
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  const authorizationUrl = new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /\n {2}(http\S+\/oauth\/authorize\?\S+)\n/.exec(urlOn === 'stdout' ? out : err);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); look(); });
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); look(); });
    void exited.then((r) => reject(new Error(`oauth try exited ${r.code} before printing the URL:\n${r.out}\n${r.err}`)));
  });
  return { authorizationUrl, exited };
}

describe('oauth try', () => {
  it('prints the authorization URL, receives the code, prints the ID token claims and the userinfo response, exits 0 (the secret on standard input)', async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const { clientId, secret } = await makeClient(t, { redirectUris: [redirectUri] });
    const run = startTry(['--client', clientId, '--issuer', t.baseUrl, '--redirect-uri', redirectUri, '--scope', 'openid profile email', '--json'], 'stderr', { input: `${secret!}\n` });
    const url = new URL(await run.authorizationUrl);
    expect(url.origin).toBe(t.baseUrl);
    for (const parameter of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(parameter)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await new Browser(t.baseUrl).authorize(url.href, user);
    expect(callback.startsWith(`${redirectUri}?`)).toBe(true);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in as try@example.test. You can close this tab');

    const result = await run.exited;
    expect(result.code, result.err).toBe(0);
    const printed = JSON.parse(result.out);
    expect(printed.claims).toMatchObject({ iss: t.baseUrl, aud: clientId, sub: String(user.id), nonce: url.searchParams.get('nonce') });
    expect(printed.userinfo).toMatchObject({ sub: String(user.id), email: 'try@example.test', given_name: 'Tilda' });
    expect(printed).toMatchObject({ authorizationUrl: url.href, refreshToken: true });
  });

  it('takes the secret from OAUTH_CLIENT_SECRET (standard input then unread) and never prints it', async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const { clientId, secret } = await makeClient(t, { redirectUris: [redirectUri] });
    const run = startTry(['--client', clientId, '--issuer', t.baseUrl, '--redirect-uri', redirectUri], 'stdout',
      { input: 'not the secret\n', env: { OAUTH_CLIENT_SECRET: secret! } });
    const callback = await new Browser(t.baseUrl).authorize(await run.authorizationUrl, user);
    expect(await (await fetch(callback)).text()).toContain('Signed in as try@example.test.');
    const result = await run.exited;
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('Userinfo response:');
    expect(result.out + result.err).not.toContain(secret!);
  });

  it('refuses --secret, saying why and what to do instead, before anything else', async () => {
    const given = await runInProcess(dataDir, ['oauth', 'try', '--client', 'wiki', '--secret', 'hunter22', '--redirect-uri', 'http://127.0.0.1:9/cb']);
    expect(given.code).toBe(2);
    expect(given.err).toContain('error: --secret is refused: a secret on the command line shows in ps and the shell history. '
      + 'Give it on standard input (printf \'%s\\n\' "$SECRET" | … oauth try …) or in OAUTH_CLIENT_SECRET\n');
    // The usage line offers no --secret; the help lists it as refused.
    const help = await runInProcess(dataDir, ['oauth', 'try', '--help']);
    expect(help.out).toMatch(/^Usage: \S+ oauth try \[--client ID\] \[--redirect-uri URI\]/);
    expect(help.out.split('\n')[0]).not.toContain('--secret');
    expect(help.out).toContain('--secret S');
  });

  it('a denied consent answers the browser, prints the OAuth error and exits 1', async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const { clientId } = await makeClient(t, { redirectUris: [redirectUri], confidential: false });
    const run = startTry(['--client', clientId, '--issuer', t.baseUrl, '--redirect-uri', redirectUri], 'stdout');
    const callback = await new Browser(t.baseUrl).authorize(await run.authorizationUrl, user, 'deny');
    const page = await fetch(callback);
    expect(await page.text()).toContain('Sign-in failed');
    const result = await run.exited;
    expect(result.code).toBe(1);
    expect(result.err).toContain('error: access_denied');
    expect(result.out).toContain('Open this URL in a browser, sign in and allow:');
  });

  it('a client that may use fewer scopes than asked: exits 1 saying how to ask for fewer or give it more', async () => {
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const { clientId } = await makeClient(t, { redirectUris: [redirectUri], confidential: false, scopes: ['openid'] });
    const run = startTry(['--client', clientId, '--issuer', t.baseUrl, '--redirect-uri', redirectUri], 'stdout');
    // The authorization endpoint redirects the error at once, before any login.
    await fetch(await run.authorizationUrl);
    const result = await run.exited;
    expect(result.code).toBe(1);
    expect(result.err).toContain('error: invalid_scope: Scope not allowed for this client: profile email (ask only for --scope "openid", or add profile, email '
      + `to the client's scopes (client show --client-id ${clientId} lists them; client update --scope replaces the whole list, so name them all))`);
    // Another invalid_scope says what to fix itself: no hint.
    const unknown = startTry(['--client', clientId, '--issuer', t.baseUrl, '--redirect-uri', redirectUri, '--scope', 'openid nosuchscope'], 'stdout');
    await fetch(await unknown.authorizationUrl);
    const refused = await unknown.exited;
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/error: invalid_scope: .*nosuchscope\n/);
    expect(refused.err).not.toContain('client update');
  });

  it('refuses what it cannot listen on or find, before waiting', async () => {
    const other = await runInProcess(dataDir, ['oauth', 'try', '--client', 'wiki']);
    expect(other.code).toBe(2);
    expect(other.err).toContain('--redirect-uri is required for a client other than demo-app or demo-spa');
    const remote = await runInProcess(dataDir, ['oauth', 'try', '--client', 'wiki', '--redirect-uri', 'https://wiki.example/cb']);
    expect(remote.code).toBe(2);
    expect(remote.err).toContain('--redirect-uri must be http on 127.0.0.1, [::1] or localhost');
    const nothing = await runInProcess(dataDir, ['oauth', 'try', '--issuer', `http://127.0.0.1:${await freePort()}`, '--json']);
    expect(nothing.code).toBe(1);
    expect(JSON.parse(nothing.out).error).toMatch(/^discovery at http:\/\/127\.0\.0\.1:\d+ failed: .*is the server running\?/);
  });
});
