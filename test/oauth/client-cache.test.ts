/**
 * The token endpoint keeps clients in memory, yet acts as if it read them on
 * every request: a change made elsewhere (another instance, the CLI, the admin
 * screen) counts at once, a refusal is never based on an outdated client, and
 * a request refused for a stale client consumed nothing.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { deleteClient, regenerateClientSecret, updateClient } from '../../src/oauth/clients/clients.service.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

type Registered = { clientId: string; secret: string };

const t = useTestApp();
let session: TestSession;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
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

  test('a required region added to the client counts at once for the next code', async () => {
    const { client } = await servedClient();
    const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie });
    await updateClient(t.db, t.keys, client.clientId, { ...settings, grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [await makeRegion(t.db)] }, t.clock.now());
    // The code was issued before the change and is still honoured: the change is to the client, not the code.
    const response = await exchange(client, code);
    expect(response.statusCode).toBe(200);
    // Its refresh token is not: the user is in none of the required regions now.
    expect((await refresh(client, response.json().refresh_token)).json().error_description).toBe('User not in required regions');
  });
});
