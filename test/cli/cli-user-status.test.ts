/**
 * `user disable`, `user enable` and `user delete` through the bin on an
 * embedded data directory: what each does to logins and sessions (seen
 * through the app on the same directory), their text and `--json` output,
 * the security events they store (actor: the operator), and refusals that
 * change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { logIn, makeDataDir, runBin, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
let adaId: number;
const ADA = 'Ada@example.test';
const PASSWORD = 'ada pass phrase';

const cli = (argv: string[], input = '') => runInProcess(dataDir, argv, input);

beforeAll(async () => {
  ({ dataDir, remove } = await makeDataDir({ migrated: true, share: true }));
  const added = await cli(['user', 'add', '--email', ADA, '--first-name', 'Ada', '--last-name', 'Apfel', '--json'], `${PASSWORD}\n`);
  expect(added.code).toBe(0);
  adaId = (JSON.parse(added.out) as { id: number }).id;
});
afterAll(() => remove());

/** The user's stored member events: name and details. */
const memberEvents = () => withDatabase(dataDir, async (db) =>
  (await db.selectFrom('security_events').select(['event', 'user_id', 'details']).where('event', 'like', 'account.member.%').orderBy('id').execute())
    .map((r) => ({ event: r.event, userId: r.user_id, ...r.details })));

const loginStatus = (email = ADA) => withApp(dataDir, async (app) => (await logIn(app, email, PASSWORD)).status);

describe('user disable and enable', () => {
  test('disable ends the sessions and refuses the login; enable lets the user in again (disable through the bin)', async () => {
    const cookie = await withApp(dataDir, async (app) => (await logIn(app, ADA, PASSWORD)).cookie);
    const disabled = await runBin(dataDir, ['user', 'disable', '--email', ADA]);
    expect(disabled).toEqual({ code: 0, out: `${ADA} (user ${adaId}) disabled; 1 session(s) ended, 0 app grant(s) revoked.\n`, err: '' });
    await withApp(dataDir, async (app) => {
      expect((await app.inject({ url: '/api/user/current', headers: { cookie } })).statusCode).toBe(401);
      const refused = await app.inject({ method: 'POST', url: '/api/user/login', payload: { email: ADA, password: PASSWORD } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'auth.account-disabled', detail: 'This account is disabled. Please contact the organisation team.' });
    });

    // list and show tell a disabled account apart, in text and in --json.
    const listed = JSON.parse((await cli(['user', 'list', '--json'])).out) as { id: number; status: string; disabledAt: string | null }[];
    const disabledAt = listed.find((u) => u.id === adaId)!.disabledAt!;
    expect(listed.find((u) => u.id === adaId)).toMatchObject({ status: 'disabled', disabledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const since = `disabled since ${disabledAt.slice(0, 16).replace('T', ' ')} UTC`;
    expect((await cli(['user', 'list'])).out).toContain(`${ADA.padEnd(30)} foodsharer    Ada Apfel  [${since}]\n`);
    expect((await cli(['user', 'show', '--id', String(adaId)])).out.split('\n')[0]).toBe(`${adaId}: ${ADA} — Ada Apfel (foodsharer, ${since})`);
    expect(JSON.parse((await cli(['user', 'show', '--email', ADA, '--json'])).out)).toMatchObject({ status: 'disabled', disabledAt });

    const again = await cli(['user', 'disable', '--id', String(adaId), '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toEqual({ error: `${ADA} (user ${adaId}) is already disabled` });

    const enabled = await cli(['user', 'enable', '--email', ADA.toLowerCase(), '--json']);
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.out)).toEqual({ id: adaId, email: ADA, disabled: false });
    expect(enabled.err.trim().split('\n').map((line) => JSON.parse(line) as object)).toEqual([
      expect.objectContaining({ level: 30, event: 'account.member.enabled', userId: adaId, actorId: null, msg: 'member enabled' }),
    ]);
    expect(await loginStatus()).toBe(200);
    expect(JSON.parse((await cli(['user', 'show', '--id', String(adaId), '--json'])).out)).toMatchObject({ status: 'active', disabledAt: null });
    expect((await cli(['user', 'list'])).out).toContain(`${ADA.padEnd(30)} foodsharer    Ada Apfel\n`);
    expect(await cli(['user', 'enable', '--email', ADA])).toMatchObject({ code: 1, err: expect.stringContaining(`${ADA} (user ${adaId}) is not disabled`) });

    const json = await cli(['user', 'disable', '--email', ADA, '--json']);
    expect(JSON.parse(json.out)).toEqual({ id: adaId, email: ADA, disabled: true, sessionsEnded: 1, grantsRevoked: 0 });
    expect((await cli(['user', 'enable', '--email', ADA])).out).toBe(`${ADA} (user ${adaId}) enabled.\n`);

    expect(await memberEvents()).toEqual([
      { event: 'account.member.created', userId: adaId, actorId: null, role: 'foodsharer' },
      { event: 'account.member.disabled', userId: adaId, actorId: null, sessionsEnded: 1, grantsRevoked: 0 },
      { event: 'account.member.enabled', userId: adaId, actorId: null },
      { event: 'account.member.disabled', userId: adaId, actorId: null, sessionsEnded: 1, grantsRevoked: 0 },
      { event: 'account.member.enabled', userId: adaId, actorId: null },
    ]);
  });

  test('an unknown user: exit 1, nothing written; neither or both of --id and --email: usage, exit 2', async () => {
    const unknown = await cli(['user', 'disable', '--email', 'nobody@example.test']);
    expect(unknown).toMatchObject({ code: 1, out: '' });
    expect(unknown.err).toContain('there is no user with email nobody@example.test');
    expect((await cli(['user', 'enable'])).code).toBe(2);
    expect((await cli(['user', 'disable', '--id', '1', '--email', ADA])).code).toBe(2);
    expect(await memberEvents()).toHaveLength(5);
  });
});

describe('user delete', () => {
  test('without --confirm-email: usage; a confirmation that differs (even in case): exit 1, nothing deleted', async () => {
    const missing = await cli(['user', 'delete', '--email', ADA]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--confirm-email is required');
    const wrong = await cli(['user', 'delete', '--email', ADA, '--confirm-email', ADA.toLowerCase(), '--json']);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.out)).toEqual({ error: `--confirm-email does not match the email of user ${adaId}; nothing was deleted` });
    expect(await loginStatus()).toBe(200);
    expect(await memberEvents()).toHaveLength(5);
  });

  test('deletes: the login and the address are gone, the row anonymised, the event stored (through the bin)', async () => {
    await loginStatus();
    const deleted = await runBin(dataDir, ['user', 'delete', '--id', String(adaId), '--confirm-email', ADA]);
    expect(deleted).toEqual({ code: 0, out: `${ADA} (user ${adaId}) deleted; 2 session(s) ended, 0 app grant(s) revoked.\n`, err: '' });
    expect(await loginStatus()).toBe(401);
    expect(await withDatabase(dataDir, (db) => db.selectFrom('users').select(['email', 'first_name', 'last_name']).where('id', '=', adaId).executeTakeFirst()))
      .toEqual({ email: `deleted-${adaId}@deleted.invalid`, first_name: 'Gelöschtes', last_name: 'Mitglied' });
    expect((await memberEvents()).at(-1)).toEqual({ event: 'account.member.deleted', userId: adaId, actorId: null, sessionsEnded: 2, grantsRevoked: 0 });
    expect(JSON.parse((await cli(['user', 'show', '--id', String(adaId), '--json'])).out)).toMatchObject({ status: 'deleted', email: `deleted-${adaId}@deleted.invalid` });
    expect((await cli(['user', 'list'])).out).toContain(`deleted-${adaId}@deleted.invalid`.padEnd(30) + ' foodsharer    Gelöschtes Mitglied  [deleted]\n');
    const unknown = await cli(['user', 'delete', '--email', ADA, '--confirm-email', ADA]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`there is no user with email ${ADA}`);
    const twice = await cli(['user', 'delete', '--id', String(adaId), '--confirm-email', `deleted-${adaId}@deleted.invalid`, '--json']);
    expect(JSON.parse(twice.out)).toEqual({ error: `user ${adaId} was deleted before` });
  });

  test('a deleted member\'s row takes no password, status, second-factor or session change: exit 1, nothing written', async () => {
    const row = () => withDatabase(dataDir, (db) => db.selectFrom('users').selectAll().where('id', '=', adaId).executeTakeFirstOrThrow());
    const before = await row();
    const eventsBefore = await memberEvents();
    const id = ['--id', String(adaId)];
    for (const argv of [['user', 'set-password', ...id], ['user', 'disable', ...id], ['user', 'enable', ...id], ['user', 'reset-second-factor', ...id], ['sessions', 'revoke', '--user', String(adaId)]]) {
      expect(await cli(argv, 'a new pass phrase for a deleted row\n'), argv.join(' ')).toEqual({ code: 1, out: '', err: `error: user ${adaId} was deleted before\n` });
    }
    expect(await row()).toEqual(before);
    expect(before.password_hash).toBe('!');
    expect(await memberEvents()).toEqual(eventsBefore);
  });
});
