/**
 * A client's logout settings through the CLI (RP-Initiated Logout 1.0 §3.1,
 * Back-Channel Logout 1.0 §2.2): set on `client add`, shown by `client show`,
 * changed and cleared by `client update`, refused with the option's name.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DB } from '../../src/db/database.ts';
import { makeDataDir, runInProcess, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
});
afterAll(() => remove());

const cli = (...argv: string[]) => runInProcess(dataDir, argv);
const logoutColumns = (db: DB, clientId: string) => db.selectFrom('oauth_clients')
  .select(['post_logout_redirect_uris', 'backchannel_logout_uri', 'backchannel_logout_session_required'])
  .where('client_id', '=', clientId).executeTakeFirst();
const stored = (clientId: string) => withDatabase(dataDir, (db) => logoutColumns(db, clientId));

describe('client logout settings', () => {
  test('add: repeatable post-logout redirect URIs, a back-channel logout URI and its sid flag are stored and shown', async () => {
    const added = await cli('client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb',
      '--post-logout-redirect-uri', 'https://wiki.example/bye', '--post-logout-redirect-uri', 'http://127.0.0.1:8000/bye',
      '--backchannel-logout-uri', 'https://wiki.example/backchannel', '--backchannel-logout-session-required', '--json');
    expect(added.code).toBe(0);
    expect(await stored('wiki')).toEqual({
      post_logout_redirect_uris: ['https://wiki.example/bye', 'http://127.0.0.1:8000/bye'],
      backchannel_logout_uri: 'https://wiki.example/backchannel', backchannel_logout_session_required: true,
    });
    const show = JSON.parse((await cli('client', 'show', '--client-id', 'wiki', '--json')).out);
    expect(show).toMatchObject({
      postLogoutRedirectUris: ['https://wiki.example/bye', 'http://127.0.0.1:8000/bye'],
      backchannelLogoutUri: 'https://wiki.example/backchannel', backchannelLogoutSessionRequired: true,
    });
    const text = (await cli('client', 'show', '--client-id', 'wiki')).out;
    expect(text).toContain('\n  post-logout redirect URIs: https://wiki.example/bye, http://127.0.0.1:8000/bye\n');
    expect(text).toContain('\n  back-channel logout: https://wiki.example/backchannel (sid required)\n');
  });

  test('a client without them has none', async () => {
    expect((await cli('client', 'add', '--client-id', 'plain', '--name', 'Plain', '--redirect-uri', 'https://plain.example/cb')).code).toBe(0);
    expect(await stored('plain')).toEqual({ post_logout_redirect_uris: [], backchannel_logout_uri: null, backchannel_logout_session_required: false });
    const text = (await cli('client', 'show', '--client-id', 'plain')).out;
    expect(text).toContain('\n  post-logout redirect URIs: none\n  back-channel logout: none\n');
  });

  test('update: options not given keep their value; the sid flag turns off; empty values clear', async () => {
    expect((await cli('client', 'update', '--client-id', 'wiki', '--name', 'Wiki 2')).code).toBe(0);
    expect((await stored('wiki'))!.backchannel_logout_session_required).toBe(true);
    expect((await cli('client', 'update', '--client-id', 'wiki', '--no-backchannel-logout-session-required')).code).toBe(0);
    expect(await stored('wiki')).toMatchObject({ backchannel_logout_uri: 'https://wiki.example/backchannel', backchannel_logout_session_required: false });
    expect((await cli('client', 'update', '--client-id', 'wiki', '--backchannel-logout-session-required')).code).toBe(0);
    const cleared = await cli('client', 'update', '--client-id', 'wiki', '--backchannel-logout-uri', '', '--post-logout-redirect-uri', '', '--json');
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.out)).toMatchObject({ postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutSessionRequired: false });
    expect(await stored('wiki')).toEqual({ post_logout_redirect_uris: [], backchannel_logout_uri: null, backchannel_logout_session_required: false });
  });

  test('without a back-channel logout URI the sid flag is stored false', async () => {
    expect((await cli('client', 'update', '--client-id', 'plain', '--backchannel-logout-session-required')).code).toBe(0);
    expect((await stored('plain'))!.backchannel_logout_session_required).toBe(false);
  });

  test('bad URIs are refused under the option\'s name and change nothing; both sid flags at once are a usage error', async () => {
    const bad = await cli('client', 'update', '--client-id', 'plain', '--post-logout-redirect-uri', 'http://example.com/bye',
      '--backchannel-logout-uri', 'http://example.com/backchannel');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('\n  --post-logout-redirect-uri: "http://example.com/bye" must use https (http only for 127.0.0.1, [::1] or localhost)');
    expect(bad.err).toContain('\n  --backchannel-logout-uri: must use https (http only for 127.0.0.1, [::1] or localhost)');
    const fragment = await cli('client', 'update', '--client-id', 'plain', '--backchannel-logout-uri', 'https://plain.example/bc#x');
    expect(fragment.err).toContain('--backchannel-logout-uri: must not contain a fragment (#)');
    expect(await stored('plain')).toEqual({ post_logout_redirect_uris: [], backchannel_logout_uri: null, backchannel_logout_session_required: false });
    const both = await cli('client', 'update', '--client-id', 'plain', '--backchannel-logout-session-required', '--no-backchannel-logout-session-required');
    expect(both.code).toBe(2);
    expect(both.err).toContain('give either --backchannel-logout-session-required or --no-backchannel-logout-session-required, not both');
  });
});
