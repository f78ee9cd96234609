/** OAuth clients and signing keys through the CLI, on its own embedded database directory. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { DB } from '../../src/db/database.ts';
import { isClientSecretValid } from '../../src/oauth/clients/client-secret.ts';
import { loadKeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { makeDataDir, runBin, runInProcess, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
let env: Record<string, string>;
beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
  env = { DATA_DIR: dataDir, NODE_ENV: 'test' };
});
afterAll(() => remove());

const cli = (...argv: string[]) => runInProcess(dataDir, argv);
const clientRow = (db: DB, clientId: string) => db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
const secretValid = async (clientId: string, secret: string) => {
  const keys = await loadKeyMaterial(loadConfig(env));
  const row = await withDatabase(dataDir, (db) => clientRow(db, clientId));
  return isClientSecretValid(keys, Buffer.from(row!.secret_digest!), secret);
};

describe('client add', () => {
  test('a confidential client: the secret is printed once and stored only as a digest (through the bin)', async () => {
    const result = await runBin(dataDir, ['client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb',
      '--redirect-uri', 'http://127.0.0.1:8000/cb', '--scope', 'openid', '--scope', 'email', '--grant', 'refresh_token', '--json']);
    expect(result).toMatchObject({ code: 0, err: '' });
    const json = JSON.parse(result.out);
    expect(json).toMatchObject({ clientId: 'wiki', confidential: true });
    expect(json.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = (await withDatabase(dataDir, (db) => clientRow(db, 'wiki')))!;
    expect(row).toMatchObject({ name: 'Wiki', confidential: true, redirect_uris: ['https://wiki.example/cb', 'http://127.0.0.1:8000/cb'], scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'] });
    expect(Buffer.from(row.secret_digest!).toString('utf8')).not.toContain(json.secret);
    expect(await secretValid('wiki', json.secret)).toBe(true);
    expect(await secretValid('wiki', `${json.secret}x`)).toBe(false);
  });

  test('text output and a public client', async () => {
    const confidential = await cli('client', 'add', '--client-id', 'chat', '--name', 'Chat', '--redirect-uri', 'https://chat.example/cb');
    expect(confidential.code).toBe(0);
    expect(confidential.out).toMatch(/Client secret \(shown only now, store it safely\): [A-Za-z0-9_-]{43}/);
    const pub = await cli('client', 'add', '--client-id', 'app', '--name', 'App', '--redirect-uri', 'com.example.app:/callback', '--public', '--json');
    expect(pub.code).toBe(0);
    expect(JSON.parse(pub.out)).toEqual({ clientId: 'app', confidential: false, secret: null });
  });

  test('a public client for devices without a browser: --grant with the device code grant\'s URN', async () => {
    const added = await cli('client', 'add', '--client-id', 'fridge', '--name', 'Fairteiler-Anzeige', '--redirect-uri', 'https://fridge.example/cb', '--public',
      '--grant', 'urn:ietf:params:oauth:grant-type:device_code');
    expect(added.code, added.err).toBe(0);
    const row = (await withDatabase(dataDir, (db) => clientRow(db, 'fridge')))!;
    expect(row.grant_types).toEqual(['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code']);
    const shown = await cli('client', 'show', '--client-id', 'fridge');
    expect(shown.out).toContain('  grant types:      authorization_code, urn:ietf:params:oauth:grant-type:device_code\n');
    expect((await cli('client', 'delete', '--client-id', 'fridge')).code).toBe(0);
  });

  test('refused fields are named by the options that exist; missing options are usage errors', async () => {
    const bad = await cli('client', 'add', '--client-id', 'bad id', '--name', 'X', '--redirect-uri', 'http://example.com/cb', '--scope', 'admin',
      '--grant', 'password', '--required-region', '4242');
    expect(bad.code).toBe(1);
    for (const option of ['--client-id', '--redirect-uri', '--scope', '--grant', '--required-region']) expect(bad.err).toContain(`\n  ${option}: `);
    for (const wrong of ['--redirect-uris', '--scopes', '--grant-types', '--required-regions']) expect(bad.err).not.toContain(wrong);
    const json = JSON.parse((await cli('client', 'add', '--client-id', 'bad id', '--name', 'X', '--redirect-uri', 'http://example.com/cb', '--json')).out);
    expect(json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'redirectUris', option: '--redirect-uri' })]));
    const duplicate = await cli('client', 'add', '--client-id', 'wiki', '--name', 'Again', '--redirect-uri', 'https://x.example/cb');
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('--client-id: is already taken');
    const usage = await cli('client', 'add', '--name', 'X');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('--client-id is required');
    expect(usage.err).toContain('usage: foodsharing client add --client-id ID --name NAME --redirect-uri URI...');
    expect((await cli('client', 'add', '--redirect-uris', 'https://x.example/cb')).err).toContain('unknown option "--redirect-uris"');
  });

  test('--public or --confidential against the authentication method is a usage error, nothing stored; the method alone decides', async () => {
    for (const argv of [
      ['--client-id', 'both-ways', '--public', '--token-endpoint-auth-method', 'private_key_jwt', '--jwks-uri', 'https://keys.example/jwks.json'],
      ['--client-id', 'both-ways', '--public', '--token-endpoint-auth-method', 'client_secret_basic'],
    ]) {
      const refused = await cli('client', 'add', '--name', 'X', '--redirect-uri', 'https://x.example/cb', ...argv);
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('--public contradicts --token-endpoint-auth-method');
    }
    expect(await withDatabase(dataDir, (db) => clientRow(db, 'both-ways'))).toBeUndefined();
    // Without --public, `none` makes a public client, and the answer says so.
    const none = await cli('client', 'add', '--client-id', 'none-app', '--name', 'None', '--redirect-uri', 'https://none.example/cb', '--token-endpoint-auth-method', 'none', '--json');
    expect(JSON.parse(none.out)).toEqual({ clientId: 'none-app', confidential: false, secret: null });
    const update = await cli('client', 'update', '--client-id', 'none-app', '--confidential', '--token-endpoint-auth-method', 'none');
    expect(update.code).toBe(2);
    expect(update.err).toContain('--confidential contradicts --token-endpoint-auth-method none');
    expect((await cli('client', 'delete', '--client-id', 'none-app')).code).toBe(0);
  });

  test('--id-token-signed-response-alg: stored, shown, changed; a value not supported is refused by its option', async () => {
    const added = await cli('client', 'add', '--client-id', 'alg-app', '--name', 'Alg', '--redirect-uri', 'https://alg.example/cb', '--id-token-signed-response-alg', 'ES256');
    expect(added.code).toBe(0);
    expect(await withDatabase(dataDir, (db) => clientRow(db, 'alg-app'))).toMatchObject({ id_token_signed_response_alg: 'ES256' });
    expect((await cli('client', 'show', '--client-id', 'alg-app')).out).toContain('\n  signing algorithm: ES256 (id_token_signed_response_alg: ID tokens, access tokens, logout tokens)\n');
    expect((await cli('client', 'update', '--client-id', 'alg-app', '--id-token-signed-response-alg', 'EdDSA')).code).toBe(0);
    expect(JSON.parse((await cli('client', 'show', '--client-id', 'alg-app', '--json')).out)).toMatchObject({ idTokenSignedResponseAlg: 'EdDSA' });
    const bad = await cli('client', 'update', '--client-id', 'alg-app', '--id-token-signed-response-alg', 'HS256');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('\n  --id-token-signed-response-alg: must be one of RS256, ES256, EdDSA');
    expect(await withDatabase(dataDir, (db) => clientRow(db, 'alg-app'))).toMatchObject({ id_token_signed_response_alg: 'EdDSA' });
    expect((await cli('client', 'delete', '--client-id', 'alg-app')).code).toBe(0);
  });
});

describe('client list, show, update, rotate-secret, delete', () => {
  test('list and show', async () => {
    const list = await cli('client', 'list', '--json');
    expect(list.code).toBe(0);
    const clients = JSON.parse(list.out);
    expect(clients.map((c: { clientId: string }) => c.clientId)).toEqual(['app', 'chat', 'wiki']);
    const show = await cli('client', 'show', '--client-id', 'wiki', '--json');
    expect(show.code).toBe(0);
    expect(JSON.parse(show.out)).toEqual({
      clientId: 'wiki', name: 'Wiki', confidential: true, redirectUris: ['https://wiki.example/cb', 'http://127.0.0.1:8000/cb'],
      scopes: ['openid', 'email'], grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [],
      postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutSessionRequired: false, requirePushedAuthorizationRequests: false, idTokenSignedResponseAlg: 'RS256',
      tokenEndpointAuthMethod: 'client_secret_basic', jwks: null, jwksUri: null, dpopBoundAccessTokens: false,
      createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    expect(clients.find((c: { clientId: string }) => c.clientId === 'wiki')).toEqual(JSON.parse(show.out));
    expect((await cli('client', 'show', '--client-id', 'wiki')).out).toContain('wiki: Wiki (confidential)\n  redirect URIs:    https://wiki.example/cb, http://127.0.0.1:8000/cb');
    const unknown = await cli('client', 'show', '--client-id', 'nope', '--json');
    expect(unknown).toEqual({ code: 1, out: '{"error":"There is no OAuth client \\"nope\\"."}\n', err: '' });
  });

  test('update changes only the options given; lists are replaced; the secret stays', async () => {
    const region = JSON.parse((await cli('region', 'add', '--name', 'Wikiland', '--json')).out).id;
    const updated = await cli('client', 'update', '--client-id', 'wiki', '--name', 'Wiki 2', '--scope', 'profile',
      '--redirect-uri', 'https://wiki.example/new', '--required-region', String(region), '--json');
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.out)).toMatchObject({ clientId: 'wiki', name: 'Wiki 2', confidential: true, redirectUris: ['https://wiki.example/new'],
      scopes: ['openid', 'profile'], grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [region], secret: null });
    const row = (await withDatabase(dataDir, (db) => clientRow(db, 'wiki')))!;
    expect(row).toMatchObject({ name: 'Wiki 2', redirect_uris: ['https://wiki.example/new'], scopes: ['openid', 'profile'] });
    expect(row.secret_digest).not.toBeNull();
    const refused = await cli('client', 'update', '--client-id', 'wiki', '--redirect-uri', 'http://example.com/cb');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('--redirect-uri: "http://example.com/cb" must use https');
    expect((await cli('client', 'update', '--client-id', 'nope', '--name', 'X')).code).toBe(1);
    expect((await cli('client', 'update', '--client-id', 'wiki', '--public', '--confidential')).code).toBe(2);
    // '' clears the required regions, as it clears the post-logout redirect URIs; a value beside it is still checked.
    expect((await cli('client', 'update', '--client-id', 'wiki', '--required-region', '', '--required-region', 'x')).code).toBe(2);
    const cleared = await cli('client', 'update', '--client-id', 'wiki', '--required-region', '', '--json');
    expect(cleared.code, cleared.err).toBe(0);
    expect(JSON.parse(cleared.out)).toMatchObject({ name: 'Wiki 2', requiredRegions: [] });
  });

  test('update with the settings the client has changes nothing: no write, no event, and says so', async () => {
    const changedEvents = () => withDatabase(dataDir, async (db) => (await db.selectFrom('security_events').select('id')
      .where('event', '=', 'oauth.client.changed').where('client_id', '=', 'app').execute()).length);
    const before = (await withDatabase(dataDir, (db) => clientRow(db, 'app')))!;
    const events = await changedEvents();
    const same = await cli('client', 'update', '--client-id', 'app', '--name', before.name, '--json');
    expect(same.code, same.err).toBe(0);
    expect(JSON.parse(same.out)).toMatchObject({ clientId: 'app', name: before.name, changed: false, secret: null });
    expect((await cli('client', 'update', '--client-id', 'app', '--scope', ...before.scopes.flatMap((s, i) => (i === 0 ? [s] : ['--scope', s])))).out)
      .toMatch(/^Client app unchanged: it has these settings already\.\n/);
    const after = (await withDatabase(dataDir, (db) => clientRow(db, 'app')))!;
    expect({ version: after.version, updated_at: after.updated_at }).toEqual({ version: before.version, updated_at: before.updated_at });
    expect(await changedEvents()).toBe(events);
    // A key of a private_key_jwt client compares as jsonb stores it (its members in any order, -0 as 0).
    const jwksFile = path.join(dataDir, 'key-with-zero.json');
    await writeFile(jwksFile, '{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","kid":"z","n0":-0}]}');
    const added = await cli('client', 'add', '--client-id', 'keyed-app', '--name', 'Keyed', '--redirect-uri', 'https://keyed.example/cb',
      '--token-endpoint-auth-method', 'private_key_jwt', '--jwks-file', jwksFile);
    expect(added.code, added.err).toBe(0);
    expect(JSON.parse((await cli('client', 'update', '--client-id', 'keyed-app', '--jwks-file', jwksFile, '--json')).out)).toMatchObject({ changed: false });
    expect(await cli('client', 'delete', '--client-id', 'keyed-app')).toMatchObject({ code: 0 });
    // A change is one.
    const renamed = await cli('client', 'update', '--client-id', 'app', '--name', `${before.name} 2`, '--json');
    expect(JSON.parse(renamed.out)).toMatchObject({ changed: true });
    expect((await withDatabase(dataDir, (db) => clientRow(db, 'app')))!.version).toBeGreaterThan(before.version);
    expect(await changedEvents()).toBe(events + 1);
  });

  test('update --public drops the secret, --confidential prints a new one', async () => {
    expect(JSON.parse((await cli('client', 'update', '--client-id', 'chat', '--public', '--json')).out)).toMatchObject({ confidential: false, secret: null });
    expect((await withDatabase(dataDir, (db) => clientRow(db, 'chat')))!.secret_digest).toBeNull();
    const back = JSON.parse((await cli('client', 'update', '--client-id', 'chat', '--confidential', '--json')).out);
    expect(back.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await secretValid('chat', back.secret)).toBe(true);
  });

  test('rotate-secret: the new secret works, the old one no longer', async () => {
    const old = JSON.parse((await cli('client', 'rotate-secret', '--client-id', 'wiki', '--json')).out).secret;
    const rotated = await cli('client', 'rotate-secret', '--client-id', 'wiki', '--json');
    expect(rotated.code).toBe(0);
    const { clientId, secret } = JSON.parse(rotated.out);
    expect(clientId).toBe('wiki');
    expect(await secretValid('wiki', secret)).toBe(true);
    expect(await secretValid('wiki', old)).toBe(false);
    const pub = await cli('client', 'rotate-secret', '--client-id', 'app');
    expect(pub.code).toBe(1);
    expect(pub.err).toContain('A public client has no secret.');
  });

  test('delete removes the client with its grants', async () => {
    await withDatabase(dataDir, async (db) => {
      const client = (await clientRow(db, 'chat'))!;
      const user = await db.insertInto('users').values({ email: 'g@example.test', password_hash: 'x', first_name: 'G', last_name: 'H', photo: null, home_region_id: null })
        .returning('id').executeTakeFirstOrThrow();
      await db.insertInto('oauth_grants').values({ client_id: client.id, user_id: user.id, scopes: ['openid'], auth_time: new Date(), expires_at: new Date(Date.now() + 3600_000) }).execute();
    });
    const deleted = await cli('client', 'delete', '--client-id', 'chat', '--json');
    expect(deleted).toEqual({ code: 0, out: `${JSON.stringify({ clientId: 'chat', deleted: true }, null, 2)}\n`, err: '' });
    await withDatabase(dataDir, async (db) => {
      expect(await clientRow(db, 'chat')).toBeUndefined();
      expect(await db.selectFrom('oauth_grants').select('id').execute()).toEqual([]);
    });
    const again = await cli('client', 'delete', '--client-id', 'chat');
    expect(again).toMatchObject({ code: 1, err: 'error: There is no OAuth client "chat".\n' });
  });
});

describe('keys list and rotate', () => {
  test('a new key of every algorithm becomes active; the old ones are retired but still published (as text through the bin)', async () => {
    const first = await cli('keys', 'rotate', '--json');
    expect(first.code).toBe(0);
    const { activated, retired } = JSON.parse(first.out);
    expect(Object.keys(activated)).toEqual(['RS256', 'ES256', 'EdDSA']);
    expect(retired).toHaveLength(3);
    // A security event on stderr (docs/security-events.md): the key ids, no key material.
    const events = first.err.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([{ level: 30, time: expect.any(Number), event: 'oauth.key.rotated', kids: Object.values(activated), retired, activeFrom: JSON.parse(first.out).activeFrom, msg: 'signing key rotated' }]);
    // The embedded database: no server runs beside the command, so the new keys sign at once.
    expect(Date.parse(JSON.parse(first.out).activeFrom)).toBeLessThanOrEqual(Date.now());
    const second = JSON.parse((await cli('keys', 'rotate', '--json')).out);
    expect(second.retired.sort()).toEqual(Object.values(activated).sort());
    const list = await cli('keys', 'list', '--json');
    expect(list.code).toBe(0);
    const keys = JSON.parse(list.out);
    expect(keys).toHaveLength(9);
    expect(keys.slice(0, 3)).toEqual(['RS256', 'ES256', 'EdDSA'].map((alg) => (
      { kid: second.activated[alg], alg, state: 'active', activatedAt: expect.any(String), retiredAt: null, publishedUntil: null })));
    for (const key of keys.slice(3)) expect(key).toMatchObject({ state: 'retired', retiredAt: expect.any(String), publishedUntil: expect.any(String) });
    expect((await cli('keys', 'list')).out).toMatch(new RegExp(`^${second.activated.RS256} {2}RS256 {2}active .*\n${second.activated.ES256} {2}ES256 {2}active `));
    // For a person: what happened in words, no JSON event line on either stream.
    const text = await runBin(dataDir, ['keys', 'rotate']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^New RS256 signing key \S+ is active\.\nNew ES256 signing key \S+ is active\.\nNew EdDSA signing key \S+ is active\.\nRunning servers pick the new keys up at once: the database announces the change\.\n/);
    expect(text.err).toBe('');
  });
});

describe('the encryption key', () => {
  test('a command that writes secrets or keys refuses another key than the deployment\'s, and writes nothing', async () => {
    const signingKeys = () => withDatabase(dataDir, async (db) => (await db.selectFrom('oauth_signing_keys').select('kid').execute()).length);
    const keysBefore = await signingKeys();
    const other = { OAUTH_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') };
    for (const argv of [['client', 'add', '--client-id', 'key-check-b', '--name', 'B', '--redirect-uri', 'https://b.example/cb'], ['keys', 'rotate'], ['client', 'rotate-secret', '--client-id', 'wiki']]) {
      const result = await runInProcess(dataDir, argv, '', other);
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/^error: OAUTH_ENCRYPTION_KEY is not the encryption key this database was set up with/);
    }
    expect(await withDatabase(dataDir, (db) => clientRow(db, 'key-check-b'))).toBeUndefined();
    expect(await signingKeys()).toBe(keysBefore);
  });
});
