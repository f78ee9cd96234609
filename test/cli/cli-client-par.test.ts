/**
 * The client setting require_pushed_authorization_requests (RFC 9126 §6)
 * through the CLI, under its RFC 7591 name: set by `client add`, shown by
 * `client show`, turned off and on by `client update`, both at once refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeDataDir, runInProcess, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
});
afterAll(() => remove());

const cli = (...argv: string[]) => runInProcess(dataDir, argv);
const stored = (clientId: string) => withDatabase(dataDir, (db) => db.selectFrom('oauth_clients')
  .select('require_pushed_authorization_requests').where('client_id', '=', clientId).executeTakeFirst());

describe('client --require-pushed-authorization-requests', () => {
  test('add stores it; show prints it', async () => {
    const added = await cli('client', 'add', '--client-id', 'par', '--name', 'PAR', '--redirect-uri', 'https://par.example/cb', '--require-pushed-authorization-requests');
    expect(added.code).toBe(0);
    expect(await stored('par')).toEqual({ require_pushed_authorization_requests: true });
    expect((await cli('client', 'show', '--client-id', 'par')).out).toContain('\n  pushed authorization requests: required\n');
    expect(JSON.parse((await cli('client', 'show', '--client-id', 'par', '--json')).out)).toMatchObject({ requirePushedAuthorizationRequests: true });
  });

  test('a client added without it may push or not', async () => {
    expect((await cli('client', 'add', '--client-id', 'plain', '--name', 'Plain', '--redirect-uri', 'https://plain.example/cb')).code).toBe(0);
    expect(await stored('plain')).toEqual({ require_pushed_authorization_requests: false });
    expect((await cli('client', 'show', '--client-id', 'plain')).out).toContain('\n  pushed authorization requests: optional\n');
  });

  test('update keeps it when not given, turns it off and on', async () => {
    expect((await cli('client', 'update', '--client-id', 'par', '--name', 'PAR 2')).code).toBe(0);
    expect(await stored('par')).toEqual({ require_pushed_authorization_requests: true });
    expect((await cli('client', 'update', '--client-id', 'par', '--no-require-pushed-authorization-requests')).code).toBe(0);
    expect(await stored('par')).toEqual({ require_pushed_authorization_requests: false });
    expect((await cli('client', 'update', '--client-id', 'par', '--require-pushed-authorization-requests')).code).toBe(0);
    expect(await stored('par')).toEqual({ require_pushed_authorization_requests: true });
  });

  test('both at once are refused, nothing changed', async () => {
    const both = await cli('client', 'update', '--client-id', 'par', '--require-pushed-authorization-requests', '--no-require-pushed-authorization-requests');
    expect(both.code).not.toBe(0);
    expect(both.err).toContain('give either --require-pushed-authorization-requests or --no-require-pushed-authorization-requests, not both');
    expect(await stored('par')).toEqual({ require_pushed_authorization_requests: true });
  });
});
