/**
 * `audit list`: the security events the CLI and the server stored (the audit
 * log), newest first, with the filters of /admin/audit; `keys rotate` and
 * `client add` through the CLI and a refused client at /oauth/token through
 * the app on the same data directory.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeDataDir, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
let userId: number;

const cli = (argv: string[], input = '') => runInProcess(dataDir, argv, input);
async function list(...argv: string[]): Promise<Record<string, unknown>[]> {
  const run = await cli(['audit', 'list', ...argv, '--json']);
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as Record<string, unknown>[];
}

beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
  const user = await cli(['user', 'add', '--email', 'Ada@example.test', '--first-name', 'Ada', '--last-name', 'Apfel', '--json'], 'long enough\n');
  userId = JSON.parse(user.out).id;
  expect((await cli(['client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb', '--scope', 'email', '--grant', 'refresh_token'])).code).toBe(0);
  expect((await cli(['keys', 'rotate'])).code).toBe(0);
  await withApp(dataDir, async (app) => {
    const refused = await app.inject({
      method: 'POST', url: '/oauth/token', remoteAddress: '192.0.2.7', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'wiki', client_secret: 'wrong-secret-0123456789' }).toString(),
    });
    expect(refused.statusCode).toBe(401);
  });
  // One event of this member, for the member filters.
  await withDatabase(dataDir, (db) => db.insertInto('security_events').values({
    occurred_at: new Date('2020-01-01T00:00:00Z'), event: 'oauth.consent.revoked', level: 'info', user_id: userId, client_id: 'wiki', ip: null, details: '{}',
  }).execute());
});
afterAll(() => remove());

describe('audit list', () => {
  test('every event, newest first, with its fields (--json)', async () => {
    const events = await list();
    expect(events.map((e) => e.event)).toEqual(['oauth.client.authentication_failed', 'oauth.key.rotated', 'oauth.client.created', 'account.member.created', 'oauth.consent.revoked']);
    expect(events[0]).toMatchObject({ level: 'warn', clientId: 'wiki', ip: '192.0.2.7', userId: null, details: { reason: 'wrong client secret' } });
    expect(events[1]).toMatchObject({ level: 'info', clientId: null, details: { kids: expect.any(Array), retired: expect.any(Array) } });
    expect((events[1]!.details as { kids: string[] }).kids.length).toBeGreaterThan(0);
    expect(events[2]).toMatchObject({ clientId: 'wiki', details: { confidential: true } });
    expect(events[3]).toMatchObject({ userId, email: 'Ada@example.test', clientId: null, details: { actorId: null, role: 'foodsharer' } });
    expect(events[4]).toEqual({
      id: expect.any(Number), occurredAt: '2020-01-01T00:00:00.000Z', event: 'oauth.consent.revoked', level: 'info',
      userId, email: 'Ada@example.test', clientId: 'wiki', ip: null, details: {},
    });
  });

  test('filters: event, client, member by id or email (any case), time; --limit', async () => {
    expect((await list('--event', 'oauth.key.rotated')).map((e) => e.event)).toEqual(['oauth.key.rotated']);
    expect((await list('--client', 'wiki')).map((e) => e.event)).toEqual(['oauth.client.authentication_failed', 'oauth.client.created', 'oauth.consent.revoked']);
    expect((await list('--user', String(userId))).map((e) => e.event)).toEqual(['account.member.created', 'oauth.consent.revoked']);
    expect((await list('--email', 'ada@EXAMPLE.test')).map((e) => e.event)).toEqual(['account.member.created', 'oauth.consent.revoked']);
    // As pasted, with the whitespace around it.
    expect((await list('--email', ' ada@EXAMPLE.test\t')).map((e) => e.event)).toEqual(['account.member.created', 'oauth.consent.revoked']);
    expect(await list('--email', 'nobody@example.test')).toEqual([]);
    expect((await list('--until', '2021-01-01')).map((e) => e.event)).toEqual(['oauth.consent.revoked']);
    expect((await list('--since', '2021-01-01T00:00:00Z')).map((e) => e.event)).not.toContain('oauth.consent.revoked');
    expect(await list('--since', '2020-01-01T00:00:00.001Z', '--until', '2020-12-31')).toEqual([]);
    expect((await list('--limit', '2')).map((e) => e.event)).toEqual(['oauth.client.authentication_failed', 'oauth.key.rotated']);
  });

  test('as text: one line per event, and a note when more match', async () => {
    const run = await cli(['audit', 'list', '--limit', '1']);
    expect(run.code).toBe(0);
    const [newest] = await list('--limit', '1');
    expect(run.out).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z {2}warn {2}oauth\\.client\\.authentication_failed {2}client wiki {2}ip 192\\.0\\.2\\.7 {2}\\{"reason":"wrong client secret"\\}\\n`
      + `More events match; the next page: --before ${newest!.id} \\(or narrow the filters, or raise --limit\\)\\.\\n$`));
    expect((await cli(['audit', 'list', '--user', String(userId)])).out).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z {2}info {2}account\\.member\\.created {2}user ${userId} <Ada@example\\.test> {2}\\{"role":"foodsharer","actorId":null\\}\\n`
      + `2020-01-01T00:00:00\\.000Z {2}info {2}oauth\\.consent\\.revoked {2}user ${userId} <Ada@example\\.test> {2}client wiki\\n$`));
    expect((await cli(['audit', 'list', '--event', 'demo.removed'])).out).toBe('No security events match.\n');
  });

  test('--before: page after page, events of one millisecond included; an unknown event is refused', async () => {
    const at = new Date('2019-06-01T12:00:00.123Z');
    await withDatabase(dataDir, (db) => db.insertInto('security_events').values(['first', 'second', 'third'].map((reason) => ({
      occurred_at: at, event: 'oauth.client.authentication_failed', level: 'warn' as const, user_id: null, client_id: 'same-ms', ip: null, details: JSON.stringify({ reason }),
    }))).execute());
    const pages: string[] = [];
    let before: string[] = [];
    for (;;) {
      const page = await list('--client', 'same-ms', '--limit', '1', ...before);
      if (page.length === 0) break;
      pages.push((page[0]!.details as { reason: string }).reason);
      before = ['--before', String(page[0]!.id)];
    }
    expect(pages).toEqual(['third', 'second', 'first']);
    // --until at that millisecond loses the other two of it.
    expect(await list('--client', 'same-ms', '--until', at.toISOString())).toEqual([]);
    expect(await cli(['audit', 'list', '--before', '999999999'])).toMatchObject({ code: 1, err: expect.stringContaining('there is no stored event 999999999') });
  });

  test('--actor and --actor-email: what an organisation member did on the admin screen', async () => {
    await withDatabase(dataDir, (db) => db.insertInto('security_events').values([
      { occurred_at: new Date('2020-02-01T00:00:00Z'), event: 'account.member.disabled', level: 'info', user_id: 999, client_id: null, ip: null, details: JSON.stringify({ actorId: userId, sessionsEnded: 0, grantsRevoked: 0 }) },
      { occurred_at: new Date('2020-02-02T00:00:00Z'), event: 'account.member.enabled', level: 'info', user_id: 999, client_id: null, ip: null, details: JSON.stringify({ actorId: null }) },
    ]).execute());
    expect((await list('--actor', String(userId))).map((e) => e.event)).toEqual(['account.member.disabled']);
    expect((await list('--actor-email', 'ADA@example.test')).map((e) => e.event)).toEqual(['account.member.disabled']);
    expect((await list('--actor-email', 'ADA@example.test ')).map((e) => e.event)).toEqual(['account.member.disabled']);
    expect(await list('--actor', '998')).toEqual([]);
    expect(await cli(['audit', 'list', '--actor', '1', '--actor-email', 'a@b.c'])).toMatchObject({ code: 2, err: expect.stringContaining('give at most one of --actor, --actor-email') });
  });

  test('bad filters are usage errors (exit 2)', async () => {
    for (const argv of [['--event', 'nope'], ['--since', 'yesterday'], ['--until', '2020-13-45'], ['--limit', '0'], ['--user', '1', '--email', 'a@b.c'], ['--limit', '10001']]) {
      const run = await cli(['audit', 'list', ...argv]);
      expect(run.code, argv.join(' ')).toBe(2);
    }
    expect((await cli(['audit', 'list', '--event', 'nope'])).err).toContain('--event must be one of oauth.code.reused');
  });
});
