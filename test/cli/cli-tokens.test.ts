/**
 * `token introspect | revoke` (RFC 7662, RFC 7009) from the operator's side:
 * the token on standard input, never an argument; introspection answers what
 * `/oauth/introspect` answers the token's client, plus its member; revocation
 * ends the whole grant, as `/oauth/revoke` does.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppUnderTest } from '../helpers/app.ts';
import { CALLBACK, obtainCode, tokenRequest, TEST_VERIFIER } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';
import { makeDataDir, runBin, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
let secret: string;
let tokens: { access_token: string; refresh_token: string };
let userId: number;

const cli = (argv: string[], input = '') => runInProcess(dataDir, argv, input);
const basic = () => `Basic ${Buffer.from(`wiki:${secret}`).toString('base64')}`;
const post = (app: FastifyInstance, url: string, token: string) => app.inject({
  method: 'POST', url, payload: new URLSearchParams({ token }).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic() },
});

/** Tokens as the client gets them: login, consent, code exchange. */
async function issueTokens(): Promise<{ access_token: string; refresh_token: string }> {
  return withApp(dataDir, async (app) => {
    const t = { app } as AppUnderTest;
    const session = await logInAs(app, { email: 'ada@example.test', password: 'long enough' });
    const code = await obtainCode(t, { clientId: 'wiki', cookie: session.cookie, scope: 'openid email' });
    const response = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER }, { authorization: basic() });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  });
}

beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
  const user = await cli(['user', 'add', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'Apfel', '--json'], 'long enough\n');
  userId = JSON.parse(user.out).id;
  const client = await cli(['client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', CALLBACK, '--scope', 'email', '--grant', 'refresh_token', '--json']);
  secret = JSON.parse(client.out).secret;
  tokens = await issueTokens();
});
afterAll(() => remove());

describe('token introspect', () => {
  test('an access token: what /oauth/introspect answers its client, with the member (through the bin)', async () => {
    const run = await runBin(dataDir, ['token', 'introspect', '--json'], { input: `${tokens.access_token}\n` });
    expect(run.code, run.err).toBe(0);
    const endpoint = await withApp(dataDir, async (app) => (await post(app, '/oauth/introspect', tokens.access_token)).json());
    expect(endpoint).toMatchObject({ active: true, client_id: 'wiki', sub: String(userId), scope: 'openid email', token_type: 'Bearer' });
    expect(JSON.parse(run.out)).toEqual({ ...endpoint, user: { id: userId, email: 'ada@example.test', label: `${userId} (ada@example.test)` } });
    expect(run.out + run.err).not.toContain(tokens.access_token);
  });

  test('a refresh token, as text', async () => {
    const run = await cli(['token', 'introspect'], `${tokens.refresh_token}\n`);
    expect(run.code, run.err).toBe(0);
    const lines = run.out.split('\n');
    expect(lines[0]).toBe(`Active refresh token of client wiki for user ${userId} (ada@example.test)`);
    expect(lines[1]).toBe('  scope: openid email');
    expect(lines[2]).toMatch(/^ {2}issued: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z, expires: \d{4}-\d\d-\d\dT/);
    expect(lines[3]).toMatch(/^ {2}jti: rt\.\d+$/);
  });

  test('a token that is not ours is inactive, an answer (exit 0); no token is refused; a token argument is a usage error', async () => {
    expect(await cli(['token', 'introspect', '--json'], 'not-a-token\n')).toEqual({ code: 0, out: '{\n  "active": false\n}\n', err: '' });
    expect((await cli(['token', 'introspect'], 'a.b.c.d.e\n')).out)
      .toBe('Not active: expired, revoked, rotated (a refresh token), malformed, or not issued by this server.\n');
    const none = await cli(['token', 'introspect'], '');
    expect(none.code).toBe(1);
    expect(none.err).toBe('error: no token on standard input (pipe it in, e.g. printf \'%s\\n\' "$TOKEN" | …)\n');
    const argument = await cli(['token', 'introspect', tokens.access_token]);
    expect(argument.code).toBe(2);
  });
});

describe('token revoke', () => {
  test('a refresh token revokes its whole grant: the access token is inactive too, here and at /oauth/introspect', async () => {
    const run = await cli(['token', 'revoke', '--json'], `${tokens.refresh_token}\n`);
    expect(run.code, run.err).toBe(0);
    const result = JSON.parse(run.out);
    expect(result).toEqual({ grantId: expect.any(Number), clientId: 'wiki', user: { id: userId, email: 'ada@example.test', label: `${userId} (ada@example.test)` }, revoked: true, alreadyRevoked: false });
    expect(JSON.parse((await cli(['token', 'introspect', '--json'], tokens.access_token)).out)).toEqual({ active: false });
    await withApp(dataDir, async (app) => {
      expect((await post(app, '/oauth/introspect', tokens.access_token)).json()).toEqual({ active: false });
      expect((await post(app, '/oauth/introspect', tokens.refresh_token)).json()).toEqual({ active: false });
      const refresh = await tokenRequest({ app } as AppUnderTest, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token }, { authorization: basic() });
      expect(refresh.statusCode).toBe(400);
    });
    const again = await cli(['token', 'revoke'], tokens.access_token);
    expect(again).toEqual({ code: 0, err: '', out: `Already revoked: grant ${result.grantId} of client wiki for user ${userId} (ada@example.test): its refresh and access tokens no longer work.\n` });
    // In the audit log once: the second revoke changed nothing.
    expect(await withDatabase(dataDir, (db) => db.selectFrom('security_events').select(['user_id', 'client_id', 'details']).where('event', '=', 'oauth.grant.revoked').execute()))
      .toEqual([{ user_id: userId, client_id: 'wiki', details: { grantId: result.grantId, actorId: null } }]);
  });

  test('an access token revokes its grant, as text; a token that is not ours is refused', async () => {
    const fresh = await issueTokens();
    const run = await cli(['token', 'revoke'], `${fresh.access_token}\n`);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(new RegExp(`^Revoked grant \\d+ of client wiki for user ${userId} \\(ada@example\\.test\\): its refresh and access tokens no longer work\\.\\n$`));
    expect(JSON.parse((await cli(['token', 'introspect', '--json'], fresh.refresh_token)).out)).toEqual({ active: false });
    const unknown = await cli(['token', 'revoke', '--json'], 'eyJhbGciOiJub25lIn0.e30.\n');
    expect(unknown).toEqual({ code: 1, err: '', out: '{"error":"not a token of this server, or it has expired: there is nothing to revoke"}\n' });
  });
});
