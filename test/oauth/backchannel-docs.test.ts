/**
 * docs/oauth.md's back-channel logout receiver works as written: the code
 * block is taken from the document and run as a Node.js process against a
 * listening server; it accepts the logout token of a member's logout and
 * refuses a replay, a token with a nonce, an ID token and garbage.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../../src/oauth/keys/key-store.ts';
import { signLogoutToken } from '../../src/oauth/tokens/logout-token.ts';
import type { TestApp } from '../helpers/app.ts';
import { makeUser } from '../helpers/factories.ts';
import { exampleBlock } from '../helpers/markdown-examples.ts';
import { buildListeningApp, freePort, makeClient, obtainCode } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The ```js block of docs/oauth.md whose first line names backchannel-logout.mjs. */
function documentedReceiver(): string {
  return exampleBlock('docs/oauth.md', '// backchannel-logout.mjs').text;
}

/** Lines a child process writes, awaited as events. */
class Lines {
  readonly all: string[] = [];
  private pending = '';
  constructor(private readonly stream: NodeJS.ReadableStream) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (this.pending + chunk).split('\n');
      this.pending = parts.pop()!;
      this.all.push(...parts);
    });
  }

  async waitFor(match: (line: string) => boolean): Promise<string> {
    for (;;) {
      const found = this.all.find(match);
      if (found !== undefined) return found;
      await once(this.stream, 'data');
    }
  }
}

let t: TestApp & { issuer: string };
let receiver: ChildProcessWithoutNullStreams;
let stdout: Lines;
let stderr: Lines;
let receiverUrl: string;
beforeAll(async () => {
  t = await buildListeningApp();
  const port = await freePort();
  receiverUrl = `http://127.0.0.1:${port}/`;
  // Run from the checkout, so that `import 'jose'` resolves as in an application that installed it.
  receiver = spawn(process.execPath, ['--input-type=module', '-e', documentedReceiver()], {
    cwd: ROOT, env: { ...process.env, ISSUER: t.issuer, CLIENT_ID: 'wiki', PORT: String(port) },
  });
  stdout = new Lines(receiver.stdout);
  stderr = new Lines(receiver.stderr);
  await stdout.waitFor((line) => line === `listening on ${port}`);
});
afterAll(async () => {
  receiver?.kill();
  await t?.close();
});

async function post(logoutToken: string): Promise<number> {
  const response = await fetch(receiverUrl, { method: 'POST', body: new URLSearchParams({ logout_token: logoutToken }) });
  return response.status;
}

describe('the documented receiver', () => {
  it('ends the session of a member who logs out here', async () => {
    await makeClient(t, { clientId: 'wiki', backchannelLogoutUri: receiverUrl });
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    await obtainCode(t, { clientId: 'wiki', cookie: session.cookie });
    const { sid } = await t.db.selectFrom('sessions').select('sid').where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect((await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers })).statusCode).toBe(204);
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    expect(await t.db.selectFrom('oauth_logout_notices').select(['state', 'attempts', 'last_error']).where('sid', '=', sid).executeTakeFirst())
      .toStrictEqual({ state: 'sent', attempts: 1, last_error: null });
    expect(JSON.parse(await stdout.waitFor((line) => line.startsWith('{')))).toStrictEqual({ loggedOut: { sub: String(user.id), sid } });
  });

  it('refuses a replayed token, a token with a nonce, an ID token and garbage with 400', async () => {
    const signer = await new KeyStore(t.db, t.keys, t.clock.now).signer();
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const token = await signLogoutToken(signer, t.issuer, now, { clientId: 'wiki', sub: '42', sid: 'sid-replay' });
    expect(await post(token)).toBe(200);
    expect(await post(token)).toBe(400);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(await post(await signer.sign(signer.logoutTokenHeader, { ...claims, jti: 'other', nonce: 'n' }))).toBe(400);
    expect(await post(await signer.sign(signer.idTokenHeader, { ...claims, jti: 'third' }))).toBe(400);
    expect(await post('not-a-jwt')).toBe(400);
    const refusals = async (count: number) => {
      while (stderr.all.length < count) await once(receiver.stderr, 'data');
      return stderr.all;
    };
    expect(await refusals(4)).toStrictEqual([
      'refused: logout token replayed',
      'refused: a logout token never carries a nonce',
      'refused: unexpected "typ" JWT header value',
      expect.stringMatching(/^refused: /),
    ]);
  });
});
