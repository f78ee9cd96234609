/**
 * The token endpoint, and the authorization endpoint under a remembered
 * consent, keep clients in memory, yet act as if they read them on every
 * request: a change made elsewhere (another instance, the CLI, the admin
 * screen) counts at once, a refusal is never based on an outdated client, and
 * a request refused for a stale client consumed nothing.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { deleteClient, regenerateClientSecret, updateClient } from '../../src/oauth/clients/clients.service.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

type Registered = { clientId: string; secret: string };

const t = useTestApp();
let user: TestUser;
let session: TestSession;

beforeAll(async () => {
  user = await makeUser(t.db);
  session = await logInAs(t.app, user);
});

function exchange(c: Registered, code: string, secret = c.secret) {
  return tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId, client_secret: secret });
}

function refresh(c: Registered, refreshToken: string, secret = c.secret) {
  return tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: c.clientId, client_secret: secret });
}

/** A client the endpoint has already served once, so that it holds it in memory. */
async function servedClient(): Promise<{ client: Registered; refreshToken: string }> {
  const client = (await makeClient(t)) as Registered;
  const response = await exchange(client, await obtainCode(t, { clientId: client.clientId, cookie: session.cookie }));
  expect(response.statusCode).toBe(200);
  return { client, refreshToken: response.json().refresh_token };
}

const settings = { name: 'Test App', confidential: true, redirectUris: [CALLBACK], scopes: ['openid', 'profile', 'email', 'regions'], requiredRegions: [] };

describe('clients in memory at the token endpoint', () => {
  test('a regenerated secret counts at once: the old one is refused without consuming the code, the new one works', async () => {
    const { client } = await servedClient();
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    const secret = await regenerateClientSecret(t.db, t.keys, client.clientId, t.clock.now());
    const old = await exchange(client, code);
    expect(old.statusCode).toBe(401);
    expect(old.json().error).toBe('invalid_client');
    expect((await exchange(client, code, secret)).statusCode).toBe(200);
  });

  test('the old secret no longer refreshes either, and the new one does', async () => {
    const { client, refreshToken } = await servedClient();
    const secret = await regenerateClientSecret(t.db, t.keys, client.clientId, t.clock.now());
    expect((await refresh(client, refreshToken)).json().error).toBe('invalid_client');
    expect((await refresh(client, refreshToken, secret)).statusCode).toBe(200);
  });

  test('a deleted client is unknown at once', async () => {
    const { client, refreshToken } = await servedClient();
    await deleteClient(t.db, client.clientId);
    const response = await refresh(client, refreshToken);
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  test('a client that lost the refresh_token grant is refused at once, and its token was not rotated', async () => {
    const { client, refreshToken } = await servedClient();
    await updateClient(t.db, t.keys, client.clientId, { ...settings, grantTypes: ['authorization_code'] }, t.clock.now());
    expect((await refresh(client, refreshToken)).json().error).toBe('unauthorized_client');
    const rows = await t.db.selectFrom('oauth_refresh_tokens').select('rotated_at').where('rotated_at', 'is not', null)
      .where('grant_id', 'in', t.db.selectFrom('oauth_grants').select('id')
        .where('client_id', '=', t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', client.clientId))).execute();
    expect(rows).toEqual([]);
  });

  test('a required region added to the client counts at once, for a code issued before it too', async () => {
    const { client } = await servedClient();
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    await updateClient(t.db, t.keys, client.clientId, { ...settings, grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [await makeRegion(t.db)] }, t.clock.now());
    // The code was issued before the change: the exchange checks the client as it is now (the code is left unused).
    const response = await exchange(client, code);
    expect(response.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid or expired code' });
  });
});

describe('clients in memory at the authorization endpoint (remembered consent)', () => {
  const SCOPE = 'openid profile';

  /** A client whose code this instance issued once under a remembered consent, so that it holds it in memory. */
  async function keptClient(): Promise<Registered> {
    const client = (await makeClient(t)) as Registered;
    const row = await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', client.clientId).executeTakeFirstOrThrow();
    await rememberConsent(t.db, user.id, row.id, ['openid', 'profile'], t.clock.now());
    expect((await authorize(client)).statusCode).toBe(303);
    return client;
  }

  function authorize(client: Registered, overrides: Record<string, string> = {}, cookie = session.cookie) {
    const query = new URLSearchParams({
      response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: SCOPE, state: 'st',
      code_challenge: createHash('sha256').update(TEST_VERIFIER).digest('base64url'), code_challenge_method: 'S256', ...overrides,
    });
    return t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie } });
  }

  /** A member of their own, signed in, who remembered consent for `client`. */
  async function memberOf(client: Registered): Promise<{ member: TestUser; cookie: string }> {
    const member = await makeUser(t.db);
    const { cookie } = await logInAs(t.app, member);
    const row = await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', client.clientId).executeTakeFirstOrThrow();
    await rememberConsent(t.db, member.id, row.id, ['openid', 'profile'], t.clock.now());
    return { member, cookie };
  }

  const sessionOf = (member: TestUser) => t.db.selectFrom('sessions').select(['sid', 'auth_time', 'amr', 'last_seen_at'])
    .where('user_id', '=', member.id).executeTakeFirstOrThrow();

  function expectLoginRedirect(response: { statusCode: number; headers: Record<string, unknown> }) {
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location)).toMatch(/^\/login\?return_to=/);
  }

  async function codesOf(client: Registered): Promise<number> {
    const rows = await t.db.selectFrom('oauth_codes').innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_codes.client_id')
      .select('oauth_codes.code_digest').where('oauth_clients.client_id', '=', client.clientId).execute();
    return rows.length;
  }

  const update = (client: Registered, changes: Record<string, unknown>) =>
    updateClient(t.db, t.keys, client.clientId, { ...settings, grantTypes: ['authorization_code', 'refresh_token'], ...changes }, t.clock.now());

  test('a kept client still issues codes, one stored per request, and each is a code the token endpoint redeems', async () => {
    const client = await keptClient();
    const before = await codesOf(client);
    const response = await authorize(client);
    expect(response.statusCode).toBe(303);
    expect(await codesOf(client)).toBe(before + 1);
    const location = new URL(response.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('st');
    const code = location.searchParams.get('code')!;
    const exchanged = await tokenRequest(t, {
      grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret,
    });
    expect(exchanged.statusCode).toBe(200);
    expect(exchanged.json().scope).toBe(SCOPE);
  });

  test('a redirect URI removed elsewhere counts at once: the error page, and no code stored', async () => {
    const client = await keptClient();
    await update(client, { redirectUris: ['https://app.example/other'] });
    const before = await codesOf(client);
    const response = await authorize(client);
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(response.body).toContain('Invalid redirect_uri');
    expect(await codesOf(client)).toBe(before);
  });

  test('a scope removed elsewhere counts at once: invalid_scope back to the client, and no code stored', async () => {
    const client = await keptClient();
    await update(client, { scopes: ['openid'] });
    const before = await codesOf(client);
    const response = await authorize(client);
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('code')).toBeNull();
    expect(await codesOf(client)).toBe(before);
  });

  test('a required region added elsewhere counts at once: the 403 page, and no code stored', async () => {
    const client = await keptClient();
    await update(client, { requiredRegions: [await makeRegion(t.db)] });
    const before = await codesOf(client);
    const response = await authorize(client);
    expect(response.statusCode).toBe(403);
    expect(await codesOf(client)).toBe(before);
  });

  test('pushed requests made required elsewhere count at once: the error page, and no code stored', async () => {
    const client = await keptClient();
    await update(client, { requirePushedAuthorizationRequests: true });
    const before = await codesOf(client);
    const response = await authorize(client);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Pushed authorization request required');
    expect(await codesOf(client)).toBe(before);
  });

  test('a client deleted elsewhere is unknown at once', async () => {
    const client = await keptClient();
    await deleteClient(t.db, client.clientId);
    const response = await authorize(client);
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('Invalid client_id');
  });

  test('after a change, the client is read afresh and kept again: codes are issued under the new settings', async () => {
    const client = await keptClient();
    await update(client, { redirectUris: [CALLBACK, 'https://app.example/second'] });
    for (const redirectUri of ['https://app.example/second', 'https://app.example/second']) {
      const response = await authorize(client, { redirect_uri: redirectUri });
      expect(response.statusCode).toBe(303);
      expect(new URL(response.headers.location as string).searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  describe('the session read in the code\'s own statement', () => {
    test('the code carries the session\'s member, sid, auth_time and amr', async () => {
      const client = await keptClient();
      const { member, cookie } = await memberOf(client);
      const response = await authorize(client, {}, cookie);
      expect(response.statusCode).toBe(303);
      const code = new URL(response.headers.location as string).searchParams.get('code')!;
      const tokens = await tokenRequest(t, {
        grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret,
      });
      expect(tokens.statusCode).toBe(200);
      const claims = JSON.parse(Buffer.from(tokens.json().id_token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
      const row = await sessionOf(member);
      expect(claims).toMatchObject({ sub: String(member.id), sid: row.sid, auth_time: Math.floor(row.auth_time.getTime() / 1000), amr: row.amr });
      const userinfo = await t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${tokens.json().access_token}` } });
      expect(userinfo.json().sub).toBe(String(member.id));
    });

    test('records that the session is used, at most every five minutes, as any other request does', async () => {
      const client = await keptClient();
      const { member, cookie } = await memberOf(client);
      const signedInAt = (await sessionOf(member)).last_seen_at;
      t.clock.advance(4 * 60);
      expect((await authorize(client, {}, cookie)).statusCode).toBe(303);
      expect((await sessionOf(member)).last_seen_at).toEqual(signedInAt);
      t.clock.advance(60);
      const now = t.clock.now();
      expect((await authorize(client, {}, cookie)).statusCode).toBe(303);
      expect((await sessionOf(member)).last_seen_at.getTime()).toBeGreaterThanOrEqual(now.getTime());
    });

    test('an ended session: the login, and no code stored', async () => {
      const client = await keptClient();
      const { member, cookie } = await memberOf(client);
      await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
      const before = await codesOf(client);
      expectLoginRedirect(await authorize(client, {}, cookie));
      expect(await codesOf(client)).toBe(before);
    });

    test('a disabled member\'s session: the login, and no code stored', async () => {
      const client = await keptClient();
      const { member, cookie } = await memberOf(client);
      await t.db.updateTable('users').set({ disabled_at: t.clock.now() }).where('id', '=', member.id).execute();
      const before = await codesOf(client);
      expectLoginRedirect(await authorize(client, {}, cookie));
      expect(await codesOf(client)).toBe(before);
    });

    test('an expired session: the login, and no code stored', async () => {
      const client = await keptClient();
      const { cookie } = await memberOf(client);
      await t.db.updateTable('sessions').set({ expires_at: t.clock.now() }).where('id_digest', '=', createHash('sha256').update(/fs_session=([^;]+)/.exec(cookie)![1]!).digest()).execute();
      const before = await codesOf(client);
      expectLoginRedirect(await authorize(client, {}, cookie));
      expect(await codesOf(client)).toBe(before);
    });

    test('another member\'s remembered consent does not count: the consent page, and no code stored', async () => {
      const client = await keptClient();
      const { cookie } = await logInAs(t.app, await makeUser(t.db));
      const before = await codesOf(client);
      const response = await authorize(client, {}, cookie);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('name="decision"');
      expect(await codesOf(client)).toBe(before);
    });

    test('a cookie that cannot be a session id: the login', async () => {
      const client = await keptClient();
      expectLoginRedirect(await authorize(client, {}, 'fs_session=not-a-session'));
    });
  });
});
