/**
 * The client setting dpop_bound_access_tokens (RFC 9449 §5.2) through the
 * CLI: set by `client add`, shown by `client show`, turned off and on by
 * `client update`, both at once refused.
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
  .select('dpop_bound_access_tokens').where('client_id', '=', clientId).executeTakeFirst());

describe('client --dpop-bound-access-tokens', () => {
  test('add stores it; show prints it', async () => {
    const added = await cli('client', 'add', '--client-id', 'bound', '--name', 'Bound', '--redirect-uri', 'https://bound.example/cb', '--public', '--dpop-bound-access-tokens');
    expect(added.code, added.err).toBe(0);
    expect(await stored('bound')).toEqual({ dpop_bound_access_tokens: true });
    expect((await cli('client', 'show', '--client-id', 'bound')).out).toContain('\n  DPoP-bound access tokens: required (every token request carries a DPoP proof)\n');
    expect(JSON.parse((await cli('client', 'show', '--client-id', 'bound', '--json')).out)).toMatchObject({ dpopBoundAccessTokens: true });
  });

  test('a client added without it may send a proof or not', async () => {
    expect((await cli('client', 'add', '--client-id', 'plain', '--name', 'Plain', '--redirect-uri', 'https://plain.example/cb')).code).toBe(0);
    expect(await stored('plain')).toEqual({ dpop_bound_access_tokens: false });
    expect((await cli('client', 'show', '--client-id', 'plain')).out).toContain('\n  DPoP-bound access tokens: optional (bound when a proof is sent)\n');
  });

  test('update keeps it when not given, turns it off and on; both at once are refused', async () => {
    expect((await cli('client', 'update', '--client-id', 'bound', '--name', 'Bound 2')).code).toBe(0);
    expect(await stored('bound')).toEqual({ dpop_bound_access_tokens: true });
    expect((await cli('client', 'update', '--client-id', 'bound', '--no-dpop-bound-access-tokens')).code).toBe(0);
    expect(await stored('bound')).toEqual({ dpop_bound_access_tokens: false });
    expect((await cli('client', 'update', '--client-id', 'bound', '--dpop-bound-access-tokens')).code).toBe(0);
    expect(await stored('bound')).toEqual({ dpop_bound_access_tokens: true });
    const both = await cli('client', 'update', '--client-id', 'bound', '--dpop-bound-access-tokens', '--no-dpop-bound-access-tokens');
    expect(both.code).not.toBe(0);
    expect(both.err).toContain('give either --dpop-bound-access-tokens or --no-dpop-bound-access-tokens, not both');
    expect(await stored('bound')).toEqual({ dpop_bound_access_tokens: true });
  });
});
