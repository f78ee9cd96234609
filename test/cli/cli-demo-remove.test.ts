/**
 * `foodsharing demo remove`: deletes the demo accounts and OAuth
 * clients so that no published demo credential works, keeps everything else,
 * and says what it did. On its own data directory; the removal itself through the bin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USER_EMAILS } from '../../src/demo/demo-data.ts';
import { makeDataDir, runBin, runInProcess, withApp, logIn } from './cli-helpers.ts';

let work: { dataDir: string; remove(): Promise<void> };
beforeAll(async () => {
  work = await makeDataDir({ migrated: true, share: true });
  expect((await runInProcess(work.dataDir, ['demo'])).code).toBe(0);
  const member = await runInProcess(work.dataDir, ['user', 'add', '--email', 'ada@example.com', '--first-name', 'Ada', '--last-name', 'Apfel'], 'a member password\n');
  expect(member.code, member.err).toBe(0);
}, 180_000);
afterAll(() => work?.remove());

describe('demo remove', { timeout: 180_000 }, () => {
  it('--help explains what goes and what stays; an extra argument is a usage error (2)', async () => {
    const help = await runInProcess(work.dataDir, ['demo', 'remove', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: foodsharing demo remove \[--json\]\n/);
    expect(help.out).toContain('The demo regions, stores, quizzes, contents and feature toggles stay.');
    const extra = await runInProcess(work.dataDir, ['demo', 'remove', 'now']);
    expect(extra.code).toBe(2);
    expect(extra.err).toContain('usage: foodsharing demo remove [--json]');
  });

  it('deletes the demo accounts and clients, lists them, and a demo login fails while a member\'s works', async () => {
    const run = await runBin(work.dataDir, ['demo', 'remove']);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toBe([
      'Removed the demo accounts and OAuth clients; their published credentials no longer work.',
      'Accounts, with their sessions, app grants, tokens and consents and what they wrote (2 poll(s) among it):',
      ...DEMO_USER_EMAILS.map((email, i) => `  ${String(i + 1).padStart(3)}  ${email}`),
      'OAuth clients, with their consents, codes and grants: demo-app, demo-spa',
      'Kept: the demo regions, stores, quizzes, contents and feature toggles (they hold no credential).',
      '',
    ].join('\n'));
    expect(run.err).toBe('');
    await withApp(work.dataDir, async (app, db) => {
      expect((await logIn(app, 'orga@example.org', DEMO_PASSWORD)).status).toBe(401);
      expect((await logIn(app, 'ada@example.com', 'a member password')).status).toBe(200);
      expect(await db.selectFrom('oauth_clients').select('client_id').execute()).toEqual([]);
      expect(await db.selectFrom('users').select('email').execute()).toEqual([{ email: 'ada@example.com' }]);
      expect((await db.selectFrom('regions').select('id').execute()).length).toBe(5);
    });
  });

  it('a second run finds nothing, and says so (0); --json prints what was removed', async () => {
    const text = await runInProcess(work.dataDir, ['demo', 'remove']);
    expect(text).toMatchObject({ code: 0, out: 'No demo accounts or OAuth clients found; nothing removed.\n' });
    const json = await runInProcess(work.dataDir, ['demo', 'remove', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toEqual({ removedUsers: [], removedClients: [], removedPolls: 0 });
  });
});
