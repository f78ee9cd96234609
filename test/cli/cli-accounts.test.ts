import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { logIn, makeDataDir, runBin, runInProcess, unshareDatabase, withApp, withDatabase } from './cli-helpers.ts';

// Regions, users and their sessions, on the CLI's own embedded database directory.
let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => { ({ dataDir, remove } = await makeDataDir({ share: true })); });
afterAll(() => remove());

const cli = (argv: string[], input = '') => runInProcess(dataDir, argv, input);

/** Every user and region in the CLI's data directory (opened once the CLI has let go of it). */
/** The stored audit events named `event`: the member and the details. */
const storedEvents = (event: string) => withDatabase(dataDir, async (db) =>
  (await db.selectFrom('security_events').select(['user_id', 'details']).where('event', '=', event).orderBy('id').execute())
    .map((r) => ({ userId: r.user_id, ...r.details })));

function storedRows(): Promise<{ users: string[]; regions: string[] }> {
  return withDatabase(dataDir, async (db) => ({
    users: (await db.selectFrom('users').select('email').orderBy('id').execute()).map((u) => u.email),
    regions: (await db.selectFrom('regions').select('name').orderBy('id').execute()).map((r) => r.name),
  }));
}

describe('migrate', () => {
  it('creates the schema (through the bin, on an empty data directory) and is harmless the second time', async () => {
    const first = await runBin(dataDir, ['migrate', '--json']);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(first.out).applied).toContain('001_accounts');
    expect(JSON.parse((await cli(['migrate', '--json'])).out)).toEqual({ applied: [] });
    expect(await cli(['migrate'])).toEqual({ code: 0, out: 'Database schema is up to date.\n', err: '' });
  });
});

describe('region add and list', () => {
  it('add returns the id; with a parent and a type; list shows them', async () => {
    const country = await cli(['region', 'add', '--name', 'Österreich', '--type', 'country', '--json']);
    expect(country.code).toBe(0);
    const { id } = JSON.parse(country.out);
    const group = await cli(['region', 'add', '--name', 'AG Wien', '--parent', String(id), '--type', 'working-group', '--json']);
    expect(JSON.parse(group.out)).toEqual({ id: id + 1, name: 'AG Wien', type: 'working-group', parentId: id });
    expect((await cli(['region', 'add', '--name', 'Graz'])).out).toMatch(/^Region \d+ created: Graz \(region\)\n$/);
    const list = await cli(['region', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.out)).toEqual(expect.arrayContaining([
      { id, name: 'Österreich', type: 'country', parentId: null },
      { id: id + 1, name: 'AG Wien', type: 'working-group', parentId: id },
    ]));
    expect((await cli(['region', 'list'])).out).toContain(`AG Wien (working-group, in ${id})`);
  });

  it('refuses bad input: usage errors exit 2, refused values exit 1', async () => {
    const missing = await cli(['region', 'add']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('error: --name is required');
    expect((await cli(['region', 'add', '--name', 'X', '--type', 'planet'])).err).toContain('--type must be one of');
    expect((await cli(['region', 'add', '--name', 'X', '--parent', 'abc'])).code).toBe(2);
    const unknownParent = await cli(['region', 'add', '--name', 'X', '--parent', '9999', '--json']);
    expect(unknownParent.code).toBe(1);
    expect(JSON.parse(unknownParent.out)).toEqual({ error: 'The request is invalid.', errors: [{ field: 'parent', option: '--parent', message: 'region 9999 does not exist' }] });
  });
});

describe('user add', () => {
  it('creates a user with role, regions and ambassadorships; the password comes from standard input (through the bin)', async () => {
    const region = JSON.parse((await cli(['region', 'add', '--name', 'Linz', '--json'])).out).id;
    const result = await runBin(dataDir, ['user', 'add', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'Apfel',
      '--role', 'ambassador', '--region', String(region), '--ambassador-of', String(region), '--json'], { input: 'long enough\n' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ id: expect.any(Number), email: 'ada@example.test', firstName: 'Ada', lastName: 'Apfel',
      role: 'ambassador', regionIds: [region], ambassadorOf: [region] });
    expect(result.out + result.err).not.toContain('long enough');
    expect(await withApp(dataDir, async (app) => (await logIn(app, 'ada@example.test', 'long enough')).status)).toBe(200);
    expect(await storedEvents('account.member.created')).toEqual([{ userId: JSON.parse(result.out).id, actorId: null, role: 'ambassador' }]);
  });

  it('takes --password P as SPEC §3 writes it, warning on stderr that it shows in ps; standard input is then not read', async () => {
    const result = await runBin(dataDir, ['user', 'add', '--email', 'p@example.test', '--password', 'argument password', '--first-name', 'P', '--last-name', 'Q', '--json'],
      { input: 'standard input password\n' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ email: 'p@example.test' });
    expect(result.out).not.toContain('argument password');
    expect(result.err).toContain('warning: a password given as --password shows in ps and stays in the shell history; pipe it to standard input instead');
    expect(await withApp(dataDir, async (app) => [
      (await logIn(app, 'p@example.test', 'argument password')).status, (await logIn(app, 'p@example.test', 'standard input password')).status,
    ])).toEqual([200, 401]);
    // The same password rules as from standard input.
    const weak = await cli(['user', 'add', '--email', 'q@example.test', '--password', 'short', '--first-name', 'Q', '--last-name', 'R']);
    expect(weak.code).toBe(1);
    expect(weak.err).toContain('password: must be at least 8 characters');
    expect((await cli(['user', 'add', '--help'])).out).toContain('--password P');
  });

  it('names every bad field by its option and writes nothing', async () => {
    const before = await storedRows();
    const result = await cli(['user', 'add', '--email', 'not-an-email', '--first-name', 'A', '--last-name', 'B', '--region', '424242'], 'short\n');
    expect(result.code).toBe(1);
    expect(result.err).toContain('--email: must be a valid email address');
    expect(result.err).toContain('password: must be at least 8 characters');
    expect(result.err).toContain('--region: region 424242 does not exist');
    expect((await cli(['user', 'add', '--email', 'x@example.test'])).err).toContain('--first-name is required');
    const noPassword = await cli(['user', 'add', '--email', 'a@b.de', '--first-name', 'A', '--last-name', 'B']);
    expect(noPassword.code).toBe(1);
    expect(noPassword.err).toContain('no password on standard input');
    expect((await cli(['user', 'add', '--email', 'a@b.de', '--first-name', 'A', '--last-name', 'B', '--role', 'king'], 'longenough\n')).err)
      .toContain('--role must be one of foodsharer, foodsaver, store-manager, ambassador, orga');
    const duplicate = await cli(['user', 'add', '--email', 'ADA@example.test', '--first-name', 'A', '--last-name', 'B'], 'long enough\n');
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('--email: is already registered');
    expect(await storedRows()).toEqual(before);
  });

  it('refuses NUL bytes and other control characters in emails and names with a clear message, writing nothing', async () => {
    const before = await storedRows();
    const result = await cli(['user', 'add', '--email', 'a\u0000b@example.test', '--first-name', 'A\u0000', '--last-name', 'B\nC', '--json'], 'long enough');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toEqual({ error: 'The request is invalid.', errors: [
      { field: 'email', option: '--email', message: 'must be a valid email address' },
      { field: 'firstName', option: '--first-name', message: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)' },
      { field: 'lastName', option: '--last-name', message: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)' },
    ] });
    const region = await cli(['region', 'add', '--name', 'Nul\u0000stadt']);
    expect(region.code).toBe(1);
    expect(region.err).toBe('error: The request is invalid.\n  --name: must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional overrides (U+202A–U+202E, U+2066–U+2069)\n');
    expect(await storedRows()).toEqual(before);
  });
});

describe('user list, show and set-password', () => {
  it('list and show print the user, named by --id or --email', async () => {
    const list = await cli(['user', 'list', '--json']);
    expect(list.code).toBe(0);
    const ada = JSON.parse(list.out).find((u: { email: string }) => u.email === 'ada@example.test');
    expect(ada).toEqual({ id: expect.any(Number), email: 'ada@example.test', firstName: 'Ada', lastName: 'Apfel', role: 'ambassador',
      verified: true, sleeping: false, homeRegionId: expect.any(Number), status: 'active', disabledAt: null });
    const show = await cli(['user', 'show', '--email', 'ADA@example.test', '--json']);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.out)).toEqual({ ...ada, regionIds: [ada.homeRegionId], ambassadorOf: [ada.homeRegionId] });
    expect((await cli(['user', 'show', '--id', String(ada.id)])).out).toMatch(/^\d+: ada@example\.test — Ada Apfel \(ambassador, verified\)\n/);
    const unknown = await cli(['user', 'show', '--id', '99999', '--json']);
    expect(unknown).toMatchObject({ code: 1, out: '{"error":"there is no user with id 99999"}\n' });
    expect((await cli(['user', 'show'])).code).toBe(2);
    expect((await cli(['user', 'show', '--id', '1', '--email', 'a@b.de'])).err).toContain('give exactly one of --id, --email');
  });

  it('set-password reads the new password from standard input and ends the member\'s sessions; the member logs in with it, not the old one', async () => {
    const before = await withApp(dataDir, async (app) => (await logIn(app, 'ada@example.test', 'long enough')).cookie);
    const changed = await cli(['user', 'set-password', '--email', 'ada@example.test', '--json'], 'a new pass phrase\n');
    expect(changed.code).toBe(0);
    const summary = JSON.parse(changed.out);
    expect(summary).toEqual({ id: expect.any(Number), email: 'ada@example.test', passwordChanged: true, sessionsEnded: expect.any(Number), grantsRevoked: 0 });
    expect(summary.sessionsEnded).toBeGreaterThanOrEqual(1);
    expect(changed.out + changed.err).not.toContain('a new pass phrase');
    await withApp(dataDir, async (app) => {
      expect((await app.inject({ method: 'GET', url: '/api/user/current', headers: { cookie: before } })).statusCode).toBe(401);
      expect((await logIn(app, 'ada@example.test', 'a new pass phrase')).status).toBe(200);
      expect((await logIn(app, 'ada@example.test', 'long enough')).status).toBe(401);
    });
    const weak = await cli(['user', 'set-password', '--email', 'ada@example.test'], 'short\n');
    expect(weak.code).toBe(1);
    expect(weak.err).toContain('password: must be at least 8 characters');
    // NIST SP 800-63B §5.1.1.2: a commonly used password, or the account's own email address.
    const common = await cli(['user', 'set-password', '--email', 'ada@example.test'], 'Password1\n');
    expect(common.code).toBe(1);
    expect(common.err).toContain('password: is one of the most commonly used passwords; choose another');
    const own = await cli(['user', 'set-password', '--email', 'ada@example.test'], 'ADA@example.test\n');
    expect(own.code).toBe(1);
    expect(own.err).toContain('password: must not be your email address');
    await withApp(dataDir, async (app) => {
      expect((await logIn(app, 'ada@example.test', 'a new pass phrase')).status).toBe(200);
    });
    expect((await cli(['user', 'set-password', '--email', 'nobody@example.test'], 'long enough\n')).code).toBe(1);
    // The change is in the audit log, once: the refused ones wrote nothing.
    expect(await storedEvents('account.member.password_set')).toEqual([{ userId: summary.id, actorId: null, sessionsEnded: summary.sessionsEnded, grantsRevoked: 0 }]);
  });
});

describe('sessions revoke', () => {
  it('ends every session of the user and no one else\'s', async () => {
    await cli(['user', 'add', '--email', 'bert@example.test', '--first-name', 'Bert', '--last-name', 'Birne'], 'bert password\n');
    const cookies = await withApp(dataDir, async (app) => ({
      ada: [(await logIn(app, 'ada@example.test', 'a new pass phrase')).cookie, (await logIn(app, 'ada@example.test', 'a new pass phrase')).cookie],
      bert: (await logIn(app, 'bert@example.test', 'bert password')).cookie,
    }));
    const current = (app: Parameters<Parameters<typeof withApp>[1]>[0], cookie: string) =>
      app.inject({ method: 'GET', url: '/api/user/current', headers: { cookie } }).then((r) => r.statusCode);
    await withApp(dataDir, async (app) => {
      expect(await current(app, cookies.ada[0]!)).toBe(200);
    });
    const revoked = await cli(['sessions', 'revoke', '--email', 'ada@example.test', '--json']);
    expect(revoked.code).toBe(0);
    const summary = JSON.parse(revoked.out);
    expect(summary).toEqual({ userId: expect.any(Number), email: 'ada@example.test', sessionsEnded: expect.any(Number), grantsRevoked: 0 });
    expect(summary.sessionsEnded).toBeGreaterThanOrEqual(2);
    await withApp(dataDir, async (app) => {
      for (const cookie of cookies.ada) expect(await current(app, cookie)).toBe(401);
      expect(await current(app, cookies.bert)).toBe(200);
    });
    expect((await cli(['sessions', 'revoke'])).code).toBe(2);
    expect((await cli(['sessions', 'revoke', '--user', '99999'])).code).toBe(1);
    expect(await storedEvents('account.member.sessions_ended')).toEqual([{ userId: summary.userId, actorId: null, sessionsEnded: summary.sessionsEnded, grantsRevoked: 0 }]);
  });
});

describe('the embedded database', () => {
  it('fails at once with a clear message while another process holds it', async () => {
    await unshareDatabase(dataDir); // the commands of this test open the directory themselves
    const holder = await openDatabase({ kind: 'pglite', dataDir });
    try {
      const result = await cli(['region', 'add', '--name', 'Blocked']);
      expect(result.code).toBe(1);
      expect(result.err).toContain(`is in use by process ${process.pid}`);
      expect(result.err).toContain('DATABASE_URL');
    } finally {
      await holder.close();
    }
    expect((await cli(['region', 'add', '--name', 'Unblocked'])).code).toBe(0);
  });
});
