/**
 * OpenID Connect Core §11 `offline_access`: accepted wherever a scope is, and
 * dropped: a client registered with the refresh_token grant gets a refresh
 * token whether it asks or not, one without gets none and no error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

const t = useTestApp();
let session: TestSession;

beforeAll(async () => {
  session = await logInAs(t.app, await makeUser(t.db));
});

async function exchange(client: { clientId: string; secret: string | null }, scope: string) {
  const code = await obtainCode(t, { clientId: client.clientId, cookie: session.cookie, scope });
  const response = await tokenRequest(t, {
    grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: client.clientId, client_secret: client.secret!,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { scope: string; refresh_token?: string; id_token: string };
}

describe('offline_access (OpenID Connect Core §11)', () => {
  it('is accepted and dropped: a client with the refresh_token grant gets its refresh token, which refreshes with it too', async () => {
    const client = await makeClient(t);
    const tokens = await exchange(client, 'openid offline_access email');
    expect(tokens.scope).toBe('openid email');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const refreshed = await tokenRequest(t, {
      grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'openid offline_access', client_id: client.clientId, client_secret: client.secret!,
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().scope).toBe('openid');
  });

  it('gives a client without the refresh_token grant no refresh token, and no error', async () => {
    const client = await makeClient(t, { grantTypes: ['authorization_code'] });
    const tokens = await exchange(client, 'openid offline_access');
    expect(tokens.scope).toBe('openid');
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('is listed in the discovery document; other unknown scopes are still refused', async () => {
    const discovery = (await t.app.inject({ url: '/.well-known/openid-configuration' })).json();
    expect(discovery.scopes_supported).toContain('offline_access');
    const client = await makeClient(t);
    const refused = await t.app.inject({
      url: `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: CALLBACK, scope: 'openid offline_access admin', state: 's' })}`,
      headers: { cookie: session.cookie },
    });
    expect(new URL(refused.headers.location as string).searchParams.get('error')).toBe('invalid_scope');
  });
});
