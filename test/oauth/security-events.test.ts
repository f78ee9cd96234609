/**
 * Security events reach the log as structured lines with their stable names
 * (docs/security-events.md): code reuse, refresh-token family revocation,
 * client authentication failure, login lockout — and no secret, code, token
 * or password appears anywhere in the log.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { PER_SOURCE_POLICY } from '../../src/accounts/login-throttle.ts';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const lines: string[] = [];
/** Everything presented or issued during the tests: none of it may be logged. */
const secrets: string[] = [TEST_PASSWORD, TEST_VERIFIER];
const t = useTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => { lines.push(line); } } });
let user: TestUser;
let session: TestSession;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  user = await makeUser(t.db);
  session = await logInAs(t.app, user);
  client = (await makeClient(t)) as { clientId: string; secret: string };
  secrets.push(client.secret, session.cookie.split('=')[1]!.split(';')[0]!);
});

function events(name: string): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.event === name);
}

async function exchange(code: string) {
  return tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret });
}

/** A code exchanged once (its tokens among the secrets), for a second use. */
async function exchangedCode(): Promise<string> {
  const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
  secrets.push(code);
  const first = await exchange(code);
  expect(first.statusCode).toBe(200);
  secrets.push(first.json().access_token, first.json().refresh_token, first.json().id_token);
  return code;
}

describe('security events', () => {
  test('a reused code: oauth.code.reused at warn, with the client and the revoked grant', async () => {
    const code = await exchangedCode();
    expect(events('oauth.code.reused')).toEqual([]);
    expect((await exchange(code)).statusCode).toBe(400);
    const [event] = events('oauth.code.reused');
    expect(event).toMatchObject({ level: 40, clientId: client.clientId, grantId: expect.any(Number), msg: 'authorization code reused; the grant it issued is revoked' });
    expect(events('oauth.code.reused')).toHaveLength(1);
    expect(events('oauth.consent.granted')[0]).toMatchObject({
      level: 30, userId: user.id, clientId: client.clientId, scopes: ['openid', 'profile', 'email', 'regions'], remembered: false,
    });
  });

  test('a code reused after the grant it issued was deleted (expired and purged): refused alike, the event names no grant', async () => {
    const code = await exchangedCode();
    const before = events('oauth.code.reused').length;
    const grantId = (await t.db.selectFrom('oauth_codes').select('grant_id').where('used_at', 'is not', null)
      .orderBy('used_at', 'desc').executeTakeFirstOrThrow()).grant_id!;
    await t.db.deleteFrom('oauth_grants').where('id', '=', grantId).execute();
    const again = await exchange(code);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
    expect(events('oauth.code.reused').slice(before)).toEqual([expect.objectContaining({ clientId: client.clientId, grantId: null })]);
  });

  test('a retired refresh token used after the grace period: oauth.refresh_token.family_revoked', async () => {
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const tokens = (await exchange(code)).json();
    const refresh = (refreshToken: string) => tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.secret });
    const rotated = await refresh(tokens.refresh_token);
    expect(rotated.statusCode).toBe(200);
    secrets.push(code, tokens.refresh_token, tokens.access_token, rotated.json().refresh_token, rotated.json().access_token);
    t.clock.advance(t.config.refreshGraceSeconds + 1);
    expect((await refresh(tokens.refresh_token)).statusCode).toBe(400);
    expect(events('oauth.refresh_token.family_revoked')).toEqual([expect.objectContaining({
      level: 40, clientId: client.clientId, userId: user.id, grantId: expect.any(Number), tokenId: expect.any(Number),
    })]);
  });

  test('a wrong client secret: oauth.client.authentication_failed with the client id, the cause and the IP', async () => {
    const wrong = 'not-the-secret-0123456789';
    secrets.push(wrong);
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/token', remoteAddress: '192.0.2.7', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: wrong }).toString(),
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: 'Unknown client or wrong credentials.' });
    expect(events('oauth.client.authentication_failed')).toEqual([expect.objectContaining({
      level: 40, clientId: client.clientId, reason: 'wrong client secret', ip: '192.0.2.7',
    })]);
  });

  test('a login refused after too many failures: account.login.locked with the counter and the wait', async () => {
    const target = await makeUser(t.db);
    const login = (password: string) => t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: target.email, password }, remoteAddress: '198.51.100.9' });
    for (let i = 0; i < PER_SOURCE_POLICY.free; i++) expect((await login('wrong-password-guess')).statusCode).toBe(401);
    expect(events('account.login.locked')).toEqual([]);
    expect((await login(TEST_PASSWORD)).statusCode).toBe(429);
    expect(events('account.login.locked')).toEqual([expect.objectContaining({ level: 40, lockedBy: 'source', retryAfterSeconds: 60, ip: '198.51.100.9' })]);
    secrets.push('wrong-password-guess', target.email);
  });

  test('no secret, code, token, password or email appears in the log', () => {
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
