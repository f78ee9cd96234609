/**
 * `db backup | restore` of the embedded database and the keys the data
 * directory generated: a copy a fresh data directory, on another machine,
 * starts from with the same signing keys and client secrets; refused while
 * the server holds the database, over an existing database without --force,
 * for a file that is no backup, for an encryption key the backup's database
 * was not set up with, and on PostgreSQL (whose own tools do this).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dumpEmbeddedDatabase } from '../../src/db/embedded-backup.ts';
import { makeDataDir, runBin, runInProcess, withApp, withDatabase } from './cli-helpers.ts';

let source: Awaited<ReturnType<typeof makeDataDir>>;
let target: Awaited<ReturnType<typeof makeDataDir>>;
let file: string;
let secret: string;
let sourceServed: Awaited<ReturnType<typeof served>>;
beforeAll(async () => {
  source = await makeDataDir({ migrated: true });
  target = await makeDataDir();
  file = path.join(target.dataDir, 'backup.tar.gz');
  await runInProcess(source.dataDir, ['user', 'add', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'Apfel'], 'long enough\n');
  // A client: the keys are generated, and its secret's digest depends on the encryption key.
  const added = await runInProcess(source.dataDir, ['client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb', '--json']);
  secret = JSON.parse(added.out).secret;
  // A server started once: its signing keys of every algorithm are in the database the backup copies.
  sourceServed = await served(source.dataDir);
});
afterAll(async () => {
  await source.remove();
  await target.remove();
});

const KEY_FILES = ['encryption.key', 'signing-key.pem'];

/** What a server on the data directory publishes, and whether it takes the client's secret (introspection answers 200, a wrong secret 401). */
const served = (dataDir: string) => withApp(dataDir, async (app) => ({
  jwks: (await app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json(),
  secretAccepted: (await app.inject({ method: 'POST', url: '/oauth/introspect', payload: 'token=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`wiki:${secret}`).toString('base64')}` } })).statusCode,
}));

/** The audit log's operator events of the database, oldest first. */
const databaseEvents = (dataDir: string) => withDatabase(dataDir, async (db) => (await db.selectFrom('security_events').select(['event', 'details'])
  .where('event', 'in', ['database.backed_up', 'database.restored']).orderBy('id').execute()));

const emails = (dataDir: string) => withDatabase(dataDir, async (db) => (await db.selectFrom('users').select('email').execute()).map((u) => u.email));

describe('db backup and restore', () => {
  test('backup writes a file only its owner reads; an existing file is kept unless --force (through the bin)', async () => {
    const run = await runBin(source.dataDir, ['db', 'backup', file, '--json']);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ file, bytes: expect.any(Number), keys: ['signing-key.pem', 'encryption.key'] });
    const text = await runInProcess(source.dataDir, ['db', 'backup', path.join(target.dataDir, 'text.tar.gz')]);
    expect(text.out).toMatch(/^Backed up the embedded database in \S+ and its keys \(keys\/signing-key\.pem, keys\/encryption\.key\) to \S+text\.tar\.gz \(\d+ bytes\)\.\n/);
    expect(text.out).toContain('\nThe file holds the keys that decrypt its secrets: keep it as safe as the keys themselves.\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await runInProcess(source.dataDir, ['db', 'backup', file]);
    expect(again).toEqual({ code: 1, out: '', err: `error: ${file} exists: choose another name, or --force to overwrite it\n` });
    // --force over a file others could read: readable by its owner only afterwards, as it holds the keys.
    await chmod(file, 0o644);
    expect((await runInProcess(source.dataDir, ['db', 'backup', file, '--force'])).code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // Each copy of the keys is in the audit log (after the copy: a backup holds the events before it); the refused one is not.
    const backedUp = { event: 'database.backed_up', details: { keys: ['signing-key.pem', 'encryption.key'], actorId: null } };
    expect(await databaseEvents(source.dataDir)).toEqual([backedUp, backedUp, backedUp]);
  });

  test('refused while another process holds the database (a running server), saying what to do', async () => {
    await withDatabase(source.dataDir, async () => {
      const run = await runBin(source.dataDir, ['db', 'backup', path.join(target.dataDir, 'other.tar.gz')]);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^error: the embedded database in \S+ is in use by process \d+ \(is the server running\?\): a consistent copy needs it stopped\. Stop the server first, or run on PostgreSQL \(DATABASE_URL\) and use pg_dump\.\n$/);
    });
  });

  test('restore fills an empty data directory on another machine with the database and the keys: the same JWKS, the client\'s secret still works', async () => {
    expect(sourceServed.secretAccepted).toBe(200);
    expect(sourceServed.jwks.keys.map((key: { alg: string }) => key.alg).sort()).toEqual(['ES256', 'EdDSA', 'RS256']);
    const run = await runInProcess(target.dataDir, ['db', 'restore', file]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/^Restored \S+ into \S+ with its keys \(keys\/signing-key\.pem, keys\/encryption\.key\) \(its database had \d+ migrations: all of this version\)\.\n/);
    expect(run.out).toContain('\nWhat was ended, revoked or changed since the backup was taken is as it was then: sessions, app grants, disabled members,\n'
      + 'passwords, client secrets and signing keys. End or change them again where that matters (sessions revoke, token revoke,\n'
      + 'user disable, client rotate-secret, keys rotate).\n');
    // The restored database's audit log says from when on it is a copy (the backup held the two backups' events before it).
    const migrations = Number(/had (\d+) migrations:/.exec(run.out)![1]);
    expect(await databaseEvents(target.dataDir)).toEqual([
      expect.objectContaining({ event: 'database.backed_up' }), expect.objectContaining({ event: 'database.backed_up' }),
      { event: 'database.restored', details: { migrations, keys: ['signing-key.pem', 'encryption.key'], actorId: null } },
    ]);
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
    for (const name of KEY_FILES) {
      expect(await readFile(path.join(target.dataDir, 'keys', name), 'utf8')).toBe(await readFile(path.join(source.dataDir, 'keys', name), 'utf8'));
      expect((await stat(path.join(target.dataDir, 'keys', name))).mode & 0o777).toBe(0o600);
    }
    expect((await readdir(target.dataDir)).sort()).toEqual(['backup.tar.gz', 'keys', 'pglite', 'text.tar.gz']);
    // A CLI command checks the key as the server's start does.
    expect((await runInProcess(target.dataDir, ['client', 'show', '--client-id', 'wiki'])).code).toBe(0);
    expect(await served(target.dataDir)).toEqual(sourceServed);
  });

  test('a database there is replaced only with --force', async () => {
    await runInProcess(target.dataDir, ['user', 'add', '--email', 'bert@example.test', '--first-name', 'Bert', '--last-name', 'Birne'], 'long enough\n');
    const refused = await runInProcess(target.dataDir, ['db', 'restore', file]);
    expect(refused).toEqual({ code: 1, out: '', err: `error: ${target.dataDir} already holds a database: --force replaces it (back it up first with db backup)\n` });
    expect(await emails(target.dataDir)).toEqual(['ada@example.test', 'bert@example.test']);
    expect((await runInProcess(target.dataDir, ['db', 'restore', file, '--force'])).code).toBe(0);
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
  });

  test('an encryption key the backup\'s database was not set up with is refused, changing nothing', async () => {
    const other = await makeDataDir();
    try {
      const configured = await runInProcess(other.dataDir, ['db', 'restore', file], '', { OAUTH_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
      expect(configured).toEqual({ code: 1, out: '', err: 'error: OAUTH_ENCRYPTION_KEY is not the encryption key the backup\'s database was set up with: the server would refuse to start on it; nothing was restored\n' });
      expect(await readdir(other.dataDir)).toEqual([]);
      // Configured as it was: restored, and the key file the backup holds is not written (the configuration's is used).
      const key = (await readFile(path.join(source.dataDir, 'keys', 'encryption.key'), 'utf8')).trim();
      const same = await runInProcess(other.dataDir, ['db', 'restore', file, '--json'], '', { OAUTH_ENCRYPTION_KEY: key });
      expect(same.code, same.err).toBe(0);
      expect(JSON.parse(same.out)).toMatchObject({ keys: ['signing-key.pem'] });
      expect(await readdir(path.join(other.dataDir, 'keys'))).toEqual(['signing-key.pem']);
    } finally {
      await other.remove();
    }
  });

  test('a backup of an earlier version (the database alone) needs the old keys beside it', async () => {
    const other = await makeDataDir();
    try {
      const old = path.join(other.dataDir, '..', `${path.basename(other.dataDir)}-old.tar.gz`);
      await writeFile(old, Buffer.from(await (await dumpEmbeddedDatabase(source.dataDir)).arrayBuffer()));
      const refused = await runInProcess(other.dataDir, ['db', 'restore', old]);
      expect(refused.code).toBe(1);
      expect(refused.err).toBe(`error: ${old} holds no encryption key (a backup of an earlier version, or one whose keys were set by configuration) and ${path.join(other.dataDir, 'keys', 'encryption.key')} does not exist: `
        + 'the database\'s signing keys, refresh tokens and client secrets need the key it was set up with. Set OAUTH_ENCRYPTION_KEY '
        + `(or copy the old data directory's keys/ into ${path.join(other.dataDir, 'keys')}) and restore again; nothing was restored\n`);
      expect(await readdir(other.dataDir)).toEqual([]);
      await mkdir(path.join(other.dataDir, 'keys'));
      await writeFile(path.join(other.dataDir, 'keys', 'encryption.key'), randomBytes(32).toString('base64url'));
      expect((await runInProcess(other.dataDir, ['db', 'restore', old])).err)
        .toBe(`error: ${path.join(other.dataDir, 'keys', 'encryption.key')} is not the encryption key the backup's database was set up with: the server would refuse to start on it; nothing was restored\n`);
      for (const name of KEY_FILES) await writeFile(path.join(other.dataDir, 'keys', name), await readFile(path.join(source.dataDir, 'keys', name)));
      const restored = await runInProcess(other.dataDir, ['db', 'restore', old, '--json']);
      expect(restored.code, restored.err).toBe(0);
      expect(JSON.parse(restored.out)).toMatchObject({ keys: [] });
      expect(await served(other.dataDir)).toEqual(sourceServed);
    } finally {
      await other.remove();
    }
  });

  test('a backup of an earlier version is brought to this version when it is restored, and says so', async () => {
    const older = await makeDataDir({ migrated: true });
    const other = await makeDataDir();
    try {
      // The database as it was before migration 072 (the device flow's polling pace).
      await withDatabase(older.dataDir, async (db) => {
        await sql`alter table oauth_device_codes drop column last_polled_at, drop column poll_interval_seconds`.execute(db);
        await sql`delete from schema_migrations where version = 72`.execute(db);
      });
      const olderFile = path.join(other.dataDir, '..', `${path.basename(other.dataDir)}-older.tar.gz`);
      expect((await runInProcess(older.dataDir, ['db', 'backup', olderFile])).code).toBe(0);
      const run = await runInProcess(other.dataDir, ['db', 'restore', olderFile, '--json']);
      expect(run.code, run.err).toBe(0);
      const result = JSON.parse(run.out);
      expect(result).toMatchObject({ appliedNow: 1 });
      const text = await runInProcess(other.dataDir, ['db', 'restore', olderFile, '--force']);
      expect(text.out).toMatch(new RegExp(`^Restored \\S+ into \\S+ \\(its database had ${result.migrations} migrations: 1 more of this version were applied now\\)\\.\\n`));
      expect(await withDatabase(other.dataDir, async (db) => (await sql<{ version: number }>`select max(version) as version from schema_migrations`.execute(db)).rows[0]!.version))
        .toBeGreaterThanOrEqual(72);
    } finally {
      await older.remove();
      await other.remove();
    }
  });

  test('a restored database this version cannot migrate is named as restored, with why the server would not start on it', async () => {
    const broken = await makeDataDir({ migrated: true });
    const other = await makeDataDir();
    try {
      // Migration 072 forgotten while its columns stay: applying it again fails.
      await withDatabase(broken.dataDir, (db) => sql`delete from schema_migrations where version = 72`.execute(db));
      const file = path.join(other.dataDir, '..', `${path.basename(other.dataDir)}-broken.tar.gz`);
      expect((await runInProcess(broken.dataDir, ['db', 'backup', file])).code).toBe(0);
      const run = await runInProcess(other.dataDir, ['db', 'restore', file]);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was restored into ${other.dataDir}, but bringing it to this version failed: `
        + `.*last_polled_at.*; the server's start would fail likewise\\. Restore another backup, or one of this version \\(restore --force replaces it\\)\\n$`));
    } finally {
      await broken.remove();
      await other.remove();
    }
  });

  test('a file that is no backup, a missing FILE, and PostgreSQL are refused', async () => {
    const junk = path.join(target.dataDir, 'junk.tar.gz');
    await writeFile(junk, 'not a backup');
    expect(await runInProcess(target.dataDir, ['db', 'restore', junk, '--force']))
      .toEqual({ code: 1, out: '', err: `error: ${junk} is not a backup of this application's embedded database (db backup writes one)\n` });
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
    const whole = await readFile(file);
    const cut = path.join(target.dataDir, 'cut.tar.gz');
    await writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(await runInProcess(target.dataDir, ['db', 'restore', cut, '--force']))
      .toEqual({ code: 1, out: '', err: `error: ${cut} is a damaged db backup (cut short, or altered): nothing was restored\n` });
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
    expect((await runInProcess(target.dataDir, ['db', 'backup'])).code).toBe(2);
    const postgres = await runInProcess(target.dataDir, ['db', 'backup', junk], '', { DATABASE_URL: 'postgres://app@127.0.0.1:1/app' });
    expect(postgres.err).toBe('error: db backup and db restore are for the embedded database; DATABASE_URL names PostgreSQL: use pg_dump\n');
  });

  test('a data directory without a database (a mistyped DATA_DIR, the wrong working directory) is refused, nothing created or written', async () => {
    const missing = path.join(target.dataDir, 'no-such-dir');
    const out = path.join(target.dataDir, 'empty-backup.tar.gz');
    expect(await runInProcess(missing, ['db', 'backup', out])).toEqual({ code: 1, out: '',
      err: `error: ${missing} holds no embedded database: nothing to back up (DATA_DIR names the server's data directory; it defaults to ./data)\n` });
    await expect(stat(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
