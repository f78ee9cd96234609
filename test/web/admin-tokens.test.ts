/**
 * What the client admin screen's actions do to the tokens a client holds:
 * a regenerated secret, a deleted client.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import type { TestSession } from '../helpers/session.ts';
import { secretIn, useAdminScreen } from './admin-screen.ts';

const screen = useAdminScreen();
const { t, post } = screen;
let orga: TestSession;
let orgaId: number;
beforeAll(() => { ({ orga, orgaId } = screen); });

describe('what the admin actions do to tokens', () => {
  /** A confidential client made through the screen, with refresh tokens, and a first set of tokens for the orga member. */
  async function clientWithTokens(clientId: string) {
    const created = await post('/admin/oauthclients', orga, [['csrf_token', orga.csrfToken], ['client_id', clientId], ['name', clientId], ['confidential', '1'],
      ['redirect_uris', CALLBACK], ['scopes', 'profile'], ['grant_types', 'refresh_token']]);
    const secret = secretIn(created.body) ?? '';
    const code = await obtainCode(t, { clientId, cookie: orga.cookie, scope: 'openid profile' });
    const tokens = await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, client_secret: secret, code_verifier: TEST_VERIFIER });
    expect(tokens.statusCode).toBe(200);
    const body = tokens.json() as { access_token: string; refresh_token: string };
    return { secret, accessToken: body.access_token, refreshToken: body.refresh_token };
  }

  const userinfo = (accessToken: string) => t.app.inject({ url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });

  it('regenerating the secret: the token endpoint refuses the old one and accepts the new one', async () => {
    const { secret, refreshToken } = await clientWithTokens('regen-tokens');
    const regenerated = await post('/admin/oauthclients/regen-tokens/secret', orga, [['csrf_token', orga.csrfToken]]);
    const newSecret = secretIn(regenerated.body) ?? '';
    const old = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'regen-tokens', client_secret: secret });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ error: 'invalid_client' });
    const fresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'regen-tokens', client_secret: newSecret });
    expect(fresh.statusCode).toBe(200);
  });

  it('deleting the client ends its access and refresh tokens', async () => {
    const { secret, accessToken, refreshToken } = await clientWithTokens('delete-tokens');
    expect((await userinfo(accessToken)).statusCode).toBe(200);
    const grantCount = async () => (await t.db.selectFrom('oauth_grants').select('id').where('user_id', '=', orgaId).execute()).length;
    const before = await grantCount();
    const deleted = await post('/admin/oauthclients/delete-tokens/delete', orga, [['csrf_token', orga.csrfToken]]);
    expect(deleted.statusCode).toBe(303);
    const info = await userinfo(accessToken);
    expect(info.statusCode).toBe(401);
    expect(info.headers['www-authenticate']).toContain('error="invalid_token"');
    const refreshed = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'delete-tokens', client_secret: secret });
    expect(refreshed.statusCode).toBe(401);
    expect(refreshed.json()).toMatchObject({ error: 'invalid_client' });
    expect(await grantCount()).toBe(before - 1);
  });
});
