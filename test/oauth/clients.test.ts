/**
 * Client registration (service part; the admin screen is tested with it by its
 * own suite): client validation per field, update, secrets, delete, and the
 * remembered-apps functions behind /settings/apps.
 */
import { describe, expect, test } from 'vitest';
import { listAppsWithAccess, revokeAppAccess } from '../../src/oauth/consent/app-access.repository.ts';
import { findConsentScopes, rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { ClientNotFound, InvalidClientInput } from '../../src/oauth/clients/client-errors.ts';
import { createClient, deleteClient, findClient, listClients, regenerateClientSecret, updateClient } from '../../src/oauth/clients/clients.service.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { CALLBACK, makeClient, obtainCode, TEST_VERIFIER, tokenRequest } from '../helpers/oauth.ts';
import { logInAs } from '../helpers/session.ts';

const t = useTestApp();

const valid = { clientId: 'valid-1', name: 'Valid', confidential: true, redirectUris: [CALLBACK], scopes: ['profile'], grantTypes: [], requiredRegions: [] };

async function fieldErrors(work: Promise<unknown>): Promise<Record<string, string>> {
  const error = await work.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidClientInput);
  return Object.fromEntries((error as InvalidClientInput).errors!.map((e) => [e.field, e.message]));
}

describe('createClient', () => {
  test('stores every field; openid and authorization_code are always included', async () => {
    const region = await makeRegion(t.db);
    const { clientId, secret } = await createClient(t.db, t.keys, { ...valid, clientId: 'full.client_1', requiredRegions: [region], grantTypes: ['refresh_token'] });
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await findClient(t.db, clientId)).toMatchObject({
      clientId: 'full.client_1', name: 'Valid', confidential: true, redirectUris: [CALLBACK],
      scopes: ['openid', 'profile'], grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [region],
    });
    const row = await t.db.selectFrom('oauth_clients').select('secret_digest').where('client_id', '=', clientId).executeTakeFirstOrThrow();
    expect(Buffer.from(row.secret_digest!).toString('base64url')).not.toBe(secret);
    expect((await listClients(t.db)).map((c) => c.clientId)).toContain('full.client_1');
  });

  test('a clear message per field', async () => {
    const errors = await fieldErrors(createClient(t.db, t.keys, {
      clientId: 'bad id!', name: ' ', confidential: false, redirectUris: ['http://app.example/cb'], scopes: ['admin'], grantTypes: ['password'], requiredRegions: [999999],
    }));
    expect(errors).toEqual({
      clientId: 'must be 1 to 100 characters: letters, digits, "-", "_" or "."',
      name: 'must be 1 to 200 characters',
      redirectUris: '"http://app.example/cb" must use https (http only for 127.0.0.1, [::1] or localhost)',
      scopes: 'unknown scope "admin"; allowed: openid, profile, email, regions',
      grantTypes: 'unknown grant type "password"; allowed: authorization_code, refresh_token, urn:ietf:params:oauth:grant-type:device_code',
      requiredRegions: 'region 999999 does not exist',
    });
    expect((await fieldErrors(createClient(t.db, t.keys, { ...valid, redirectUris: ['', '  '] }))).redirectUris).toBe('must contain at least one redirect URI');
    await createClient(t.db, t.keys, { ...valid, clientId: 'taken' });
    expect((await fieldErrors(createClient(t.db, t.keys, { ...valid, clientId: 'taken' }))).clientId).toBe('is already taken by another client');
  });

  test('public clients have no secret', async () => {
    expect((await createClient(t.db, t.keys, { ...valid, clientId: 'pub-1', confidential: false })).secret).toBeNull();
  });
});

describe('updateClient, regenerateClientSecret, deleteClient', () => {
  test('update changes settings; public → confidential returns a new secret once; confidential → public drops it', async () => {
    await createClient(t.db, t.keys, { ...valid, clientId: 'upd', confidential: false });
    const { secret } = await updateClient(t.db, t.keys, 'upd', { ...valid, name: 'Renamed', confidential: true, scopes: ['email'] }, t.clock.now());
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await findClient(t.db, 'upd')).toMatchObject({ name: 'Renamed', confidential: true, scopes: ['openid', 'email'] });
    expect((await updateClient(t.db, t.keys, 'upd', { ...valid, confidential: true }, t.clock.now())).secret).toBeNull();
    expect((await updateClient(t.db, t.keys, 'upd', { ...valid, confidential: false }, t.clock.now())).secret).toBeNull();
    const row = await t.db.selectFrom('oauth_clients').select('secret_digest').where('client_id', '=', 'upd').executeTakeFirstOrThrow();
    expect(row.secret_digest).toBeNull();
    expect((await fieldErrors(updateClient(t.db, t.keys, 'upd', { ...valid, name: '' }, t.clock.now()))).name).toBeDefined();
    await expect(updateClient(t.db, t.keys, 'missing', valid, t.clock.now())).rejects.toBeInstanceOf(ClientNotFound);
  });

  test('regenerating a public client secret is refused; unknown clients are ClientNotFound', async () => {
    await expect(regenerateClientSecret(t.db, t.keys, 'pub-1', t.clock.now())).rejects.toBeInstanceOf(InvalidClientInput);
    await expect(regenerateClientSecret(t.db, t.keys, 'nope', t.clock.now())).rejects.toBeInstanceOf(ClientNotFound);
    await expect(deleteClient(t.db, 'nope')).rejects.toBeInstanceOf(ClientNotFound);
  });
});

describe('remembered apps', () => {
  test('listAppsWithAccess and revokeAppAccess (which also ends the refresh tokens)', async () => {
    const user = await makeUser(t.db);
    const session = await logInAs(t.app, user);
    const c = (await makeClient(t, { name: 'Chat' })) as { clientId: string; secret: string };
    const clientRow = await t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', c.clientId).executeTakeFirstOrThrow();
    await rememberConsent(t.db, user.id, clientRow.id, ['openid', 'email'], t.clock.now());
    await rememberConsent(t.db, user.id, clientRow.id, ['openid', 'profile'], t.clock.now());
    expect(await findConsentScopes(t.db, user.id, clientRow.id)).toEqual(['email', 'openid', 'profile']);
    const apps = await listAppsWithAccess(t.db, user.id, t.clock.now());
    expect(apps).toEqual([{ clientId: c.clientId, name: 'Chat', scopes: ['openid', 'profile', 'email'], grantedAt: expect.any(Date), remembered: true }]);

    const code = await obtainCode(t, { clientId: c.clientId, cookie: session.cookie, scope: 'openid email' });
    const tokens = (await tokenRequest(t, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: TEST_VERIFIER, client_id: c.clientId, client_secret: c.secret })).json();
    expect(await revokeAppAccess(t.db, t.clock.now, user.id, c.clientId)).toBe(true);
    expect(await listAppsWithAccess(t.db, user.id, t.clock.now())).toEqual([]);
    const refresh = await tokenRequest(t, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: c.clientId, client_secret: c.secret });
    expect(refresh.json().error).toBe('invalid_grant');
    expect(await revokeAppAccess(t.db, t.clock.now, user.id, c.clientId)).toBe(false);
    expect(await revokeAppAccess(t.db, t.clock.now, user.id, 'unknown')).toBe(false);
  });
});
