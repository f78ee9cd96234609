/**
 * `client export | import`: settings without secrets from one deployment to
 * another; an import creates, updates or leaves alone, reports which, and is
 * idempotent; a bad file writes nothing.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeDataDir, runBin, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let source: Awaited<ReturnType<typeof makeDataDir>>;
let target: Awaited<ReturnType<typeof makeDataDir>>;
let exported: string;
beforeAll(async () => {
  source = await makeDataDir({ migrated: true, share: true });
  target = await makeDataDir({ migrated: true, share: true });
});
afterAll(async () => {
  await source.remove();
  await target.remove();
});

const clientEvents = (dataDir: string) => withDatabase(dataDir, (db) => db.selectFrom('security_events')
  .select(['event', 'client_id', 'details']).where('event', 'like', 'oauth.client.%').orderBy('id').execute());

const rows = (dataDir: string) => withDatabase(dataDir, (db) => db.selectFrom('oauth_clients')
  .select(['client_id', 'name', 'confidential', 'secret_digest', 'updated_at']).orderBy('client_id').execute());

describe('client export', () => {
  test('every client\'s settings as a JSON array, no secret or digest (through the bin)', async () => {
    const add = (...argv: string[]) => runInProcess(source.dataDir, ['client', 'add', ...argv]);
    expect((await add('--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb', '--grant', 'refresh_token',
      '--backchannel-logout-uri', 'https://wiki.example/bc', '--post-logout-redirect-uri', 'https://wiki.example/bye',
      '--require-pushed-authorization-requests', '--id-token-signed-response-alg', 'ES256', '--dpop-bound-access-tokens')).code).toBe(0);
    expect((await add('--client-id', 'spa', '--name', 'SPA', '--redirect-uri', 'http://127.0.0.1:5173/cb', '--public', '--scope', 'email',
      '--grant', 'urn:ietf:params:oauth:grant-type:device_code')).code).toBe(0);
    const run = await runBin(source.dataDir, ['client', 'export']);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual([
      { clientId: 'spa', name: 'SPA', confidential: false, redirectUris: ['http://127.0.0.1:5173/cb'], scopes: ['openid', 'email'],
        grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'], requiredRegions: [], postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutSessionRequired: false,
        requirePushedAuthorizationRequests: false, idTokenSignedResponseAlg: 'RS256', tokenEndpointAuthMethod: 'none', jwks: null, jwksUri: null, dpopBoundAccessTokens: false },
      { clientId: 'wiki', name: 'Wiki', confidential: true, redirectUris: ['https://wiki.example/cb'], scopes: ['openid'],
        grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [], postLogoutRedirectUris: ['https://wiki.example/bye'],
        backchannelLogoutUri: 'https://wiki.example/bc', backchannelLogoutSessionRequired: false,
        requirePushedAuthorizationRequests: true, idTokenSignedResponseAlg: 'ES256', tokenEndpointAuthMethod: 'client_secret_basic', jwks: null, jwksUri: null, dpopBoundAccessTokens: true },
    ]);
    // No secret or digest, only the method's name (`client_secret_basic`).
    expect(run.out).not.toMatch(/digest|"[a-z_]*secret[a-z_]*"\s*:/i);
    expect((await runInProcess(source.dataDir, ['client', 'export', '--json'])).out).toBe(run.out);
    exported = path.join(target.dataDir, 'clients.json');
    await writeFile(exported, run.out);
  });
});

describe('client import', () => {
  test('creates the missing clients, a confidential one with a new secret printed once', async () => {
    const run = await runInProcess(target.dataDir, ['client', 'import', exported, '--json']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(run.out);
    expect(report).toEqual({ created: [{ clientId: 'spa', confidential: false, secret: null }, { clientId: 'wiki', confidential: true, secret: expect.stringMatching(/^\S{32,}$/) }], updated: [], unchanged: [], newSecrets: [] });
    expect(await rows(target.dataDir)).toMatchObject([{ client_id: 'spa', confidential: false, secret_digest: null }, { client_id: 'wiki', confidential: true }]);
    // In the audit log as client add records them: done by an operator (actorId null).
    expect(await clientEvents(target.dataDir)).toEqual([
      { event: 'oauth.client.created', client_id: 'spa', details: { confidential: false, actorId: null } },
      { event: 'oauth.client.created', client_id: 'wiki', details: { confidential: true, actorId: null } },
    ]);
    const exportedAgain = await runInProcess(target.dataDir, ['client', 'export']);
    expect(JSON.parse(exportedAgain.out)).toEqual(JSON.parse((await runInProcess(source.dataDir, ['client', 'export'])).out));
  });

  test('importing the same file again changes nothing and says so', async () => {
    const before = await rows(target.dataDir);
    const run = await runInProcess(target.dataDir, ['client', 'import', exported]);
    expect(run).toEqual({ code: 0, err: '', out: 'unchanged spa\nunchanged wiki\n0 created, 0 updated, 2 unchanged.\n' });
    expect(await rows(target.dataDir)).toEqual(before);
  });

  test('a changed client is updated and keeps its secret; from standard input', async () => {
    const before = await rows(target.dataDir);
    const clients = JSON.parse((await runInProcess(source.dataDir, ['client', 'export'])).out);
    clients[1].name = 'Wiki 2';
    const run = await runInProcess(target.dataDir, ['client', 'import', '-', '--json'], JSON.stringify(clients));
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ created: [], updated: ['wiki'], unchanged: ['spa'], newSecrets: [] });
    const after = await rows(target.dataDir);
    expect(after[1]).toMatchObject({ name: 'Wiki 2', secret_digest: before[1]!.secret_digest });
    expect(after[0]).toEqual(before[0]);
    expect((await clientEvents(target.dataDir)).slice(2)).toEqual([{ event: 'oauth.client.changed', client_id: 'wiki', details: { change: 'settings', actorId: null } }]);
  });

  test('an entry whose confidential contradicts its authentication method is refused, as client add refuses it', async () => {
    const before = await rows(target.dataDir);
    const clients = JSON.parse((await runInProcess(source.dataDir, ['client', 'export'])).out);
    const run = await runInProcess(target.dataDir, ['client', 'import', '-'],
      JSON.stringify([{ ...clients[0], confidential: true }, { ...clients[1], confidential: false }]));
    expect(run).toEqual({ code: 1, out: '', err: 'error: nothing was imported: some clients\' settings are refused\n'
      + '  [0] spa: confidential: is true, but tokenEndpointAuthMethod none is a public client\'s: a confidential client has a secret or keys\n'
      + '  [1] wiki: confidential: is false, but tokenEndpointAuthMethod client_secret_basic is a confidential client\'s: a public client authenticates with none\n' });
    expect(await rows(target.dataDir)).toEqual(before);
  });

  test('a file with a bad entry is refused, naming the entry and field, and nothing is written', async () => {
    const before = await rows(target.dataDir);
    const clients = JSON.parse((await runInProcess(source.dataDir, ['client', 'export'])).out);
    clients[0].name = 'SPA renamed';
    clients[1].redirectUris = ['http://wiki.example/cb'];
    const bad = await runInProcess(target.dataDir, ['client', 'import', '-'], JSON.stringify([...clients, { ...clients[1], clientId: 'new-one' }]));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('error: nothing was imported: some clients\' settings are refused\n  [1] wiki: redirectUris: "http://wiki.example/cb" must use https');
    expect(bad.err).toContain('\n  [2] new-one: redirectUris:');
    const extra = await runInProcess(target.dataDir, ['client', 'import', '-'], JSON.stringify([{ ...clients[0], secret: 'x' }]));
    expect(extra.code).toBe(1);
    expect(extra.err).toBe('error: the file holds entries that are not clients\' settings\n  [0].secret: Unexpected property\n');
    expect(await runInProcess(target.dataDir, ['client', 'import', '-'], '{"clientId":"x"}')).toMatchObject({ code: 1, err: 'error: the file must hold a JSON array of clients, as client export writes it\n' });
    expect((await runInProcess(target.dataDir, ['client', 'import', '-'], 'not json')).err).toMatch(/^error: the file is not JSON: /);
    expect((await runInProcess(target.dataDir, ['client', 'import', path.join(target.dataDir, 'missing.json')])).err).toMatch(/^error: cannot read .*missing\.json: ENOENT\n$/);
    expect(await rows(target.dataDir)).toEqual(before);
    expect(await clientEvents(target.dataDir)).toHaveLength(3);
    const usage = await runInProcess(target.dataDir, ['client', 'import']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('error: FILE is required\nusage: foodsharing client import FILE [--json]');
  });

  test('an entry that turns a public client to a secret method prints its new secret once, which then works', async () => {
    const clients = JSON.parse((await runInProcess(source.dataDir, ['client', 'export'])).out);
    const spa = { ...clients[0], confidential: true, tokenEndpointAuthMethod: 'client_secret_basic' };
    const run = await runInProcess(target.dataDir, ['client', 'import', '-'], JSON.stringify([spa]));
    expect(run.code, run.err).toBe(0);
    const secret = /^updated {3}spa\n {10}Client secret \(shown only now, store it safely\): (\S+)\n/.exec(run.out)?.[1];
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const introspected = await withApp(target.dataDir, (app) => app.inject({ method: 'POST', url: '/oauth/introspect', payload: 'token=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`spa:${secret}`).toString('base64')}` } }));
    expect(introspected.statusCode).toBe(200);
    // Imported again, it has that method already: no new secret.
    expect(JSON.parse((await runInProcess(target.dataDir, ['client', 'import', '-', '--json'], JSON.stringify([spa]))).out))
      .toEqual({ created: [], updated: [], unchanged: ['spa'], newSecrets: [] });
  });
});
