/**
 * docs/oauth.md's authorization request, its `…` placeholders filled in, sent
 * by a browser to a listening server; and docs/security-events.md's jq lines,
 * run by bash on this server's log (its JSON lines written to server.log in
 * the shell's directory) after a code was used twice.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { exampleBlock } from '../helpers/markdown-examples.ts';
import { Browser, CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { useShell } from './shell.ts';

const shell = useShell();
const t = useTestApp({
  listening: true, env: { LOG_LEVEL: 'info' },
  logStream: { write: (line) => { if (shell.cwd) appendFileSync(path.join(shell.cwd, 'server.log'), line.endsWith('\n') ? line : `${line}\n`); } },
});

describe('the authorization request', () => {
  test('with its placeholders filled in, a member who allows comes back to the client with a code, the state and iss', async () => {
    const block = exampleBlock('docs/oauth.md', 'GET /oauth/authorize?response_type=code&client_id=wiki');
    await makeClient(t, { clientId: 'wiki', redirectUris: ['https://wiki.example.org/oauth/callback'] });
    const user = await makeUser(t.db, { email: 'request@example.test' });
    const challenge = createHash('sha256').update(TEST_VERIFIER).digest('base64url');
    const request = block.text.replace(/^GET /, '').split('\n').map((line) => line.trim()).join('')
      .replace('state=…', 'state=st-1').replace('nonce=…', 'nonce=n-1').replace('code_challenge=…', `code_challenge=${challenge}`);
    expect(request).not.toContain('…');
    const callback = new URL(await new Browser(t.baseUrl).authorize(`${t.baseUrl}${request}`, user));
    expect(`${callback.origin}${callback.pathname}`).toBe('https://wiki.example.org/oauth/callback');
    expect(callback.searchParams.get('state')).toBe('st-1');
    expect(callback.searchParams.get('iss')).toBe(t.baseUrl);
    expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('docs/security-events.md: the events in the server log with jq', () => {
  test('both lines print the reused code\'s event', async () => {
    const block = exampleBlock('docs/security-events.md', '# every security event of the last run');
    const client = await makeClient(t);
    const session = await t.as('foodsaver');
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const exchange = () => tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret! });
    expect((await exchange()).statusCode).toBe(200);
    expect((await exchange()).statusCode).toBe(400);
    const result = await shell.run(block.text);
    expect(result.code, result.err).toBe(0);
    const printed = result.out.trim().split('\n').map((line) => JSON.parse(line) as { event: string; clientId?: string });
    const reused = printed.filter((event) => event.event === 'oauth.code.reused');
    expect(reused).toHaveLength(2);
    expect(reused[0]).toMatchObject({ clientId: client.clientId });
  });
});
