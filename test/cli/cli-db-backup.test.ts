/**
 * `db backup | restore` of the embedded database: a copy a fresh data
 * directory starts from; refused while the server holds the database, over an
 * existing database without --force, for a file that is no backup, and on
 * PostgreSQL (whose own tools do this).
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeDataDir, runBin, runInProcess, withDatabase } from './cli-helpers.ts';

let source: Awaited<ReturnType<typeof makeDataDir>>;
let target: Awaited<ReturnType<typeof makeDataDir>>;
let file: string;
beforeAll(async () => {
  source = await makeDataDir({ migrated: true });
  target = await makeDataDir();
  file = path.join(target.dataDir, 'backup.tar.gz');
  await runInProcess(source.dataDir, ['user', 'add', '--email', 'ada@example.test', '--first-name', 'Ada', '--last-name', 'Apfel'], 'long enough\n');
});
afterAll(async () => {
  await source.remove();
  await target.remove();
});

const emails = (dataDir: string) => withDatabase(dataDir, async (db) => (await db.selectFrom('users').select('email').execute()).map((u) => u.email));

describe('db backup and restore', () => {
  test('backup writes a file only its owner reads; an existing file is kept unless --force (through the bin)', async () => {
    const run = await runBin(source.dataDir, ['db', 'backup', file, '--json']);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ file, bytes: expect.any(Number) });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await runInProcess(source.dataDir, ['db', 'backup', file]);
    expect(again).toEqual({ code: 1, out: '', err: `error: ${file} exists: choose another name, or --force to overwrite it\n` });
    expect((await runInProcess(source.dataDir, ['db', 'backup', file, '--force'])).code).toBe(0);
  });

  test('refused while another process holds the database (a running server), saying what to do', async () => {
    await withDatabase(source.dataDir, async () => {
      const run = await runBin(source.dataDir, ['db', 'backup', path.join(target.dataDir, 'other.tar.gz')]);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^error: the embedded database in \S+ is in use by process \d+ \(is the server running\?\): a consistent copy needs it stopped\. Stop the server first, or run on PostgreSQL \(DATABASE_URL\) and use pg_dump\.\n$/);
    });
  });

  test('restore fills an empty data directory; a database there is replaced only with --force', async () => {
    const run = await runInProcess(target.dataDir, ['db', 'restore', file]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/^Restored \S+ into \S+ \(\d+ migrations applied in it; the server applies newer ones when it starts\)\.\n$/);
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
    await runInProcess(target.dataDir, ['user', 'add', '--email', 'bert@example.test', '--first-name', 'Bert', '--last-name', 'Birne'], 'long enough\n');
    const refused = await runInProcess(target.dataDir, ['db', 'restore', file]);
    expect(refused).toEqual({ code: 1, out: '', err: `error: ${target.dataDir} already holds a database: --force replaces it (back it up first with db backup)\n` });
    expect(await emails(target.dataDir)).toEqual(['ada@example.test', 'bert@example.test']);
    expect((await runInProcess(target.dataDir, ['db', 'restore', file, '--force'])).code).toBe(0);
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
  });

  test('a file that is no backup, a missing FILE, and PostgreSQL are refused', async () => {
    const junk = path.join(target.dataDir, 'junk.tar.gz');
    await writeFile(junk, 'not a backup');
    expect(await runInProcess(target.dataDir, ['db', 'restore', junk, '--force']))
      .toEqual({ code: 1, out: '', err: `error: ${junk} is not a backup of this application's embedded database (db backup writes one)\n` });
    expect(await emails(target.dataDir)).toEqual(['ada@example.test']);
    expect((await runInProcess(target.dataDir, ['db', 'backup'])).code).toBe(2);
    const postgres = await runInProcess(target.dataDir, ['db', 'backup', junk], '', { DATABASE_URL: 'postgres://app@127.0.0.1:1/app' });
    expect(postgres.err).toBe('error: db backup and db restore are for the embedded database; DATABASE_URL names PostgreSQL: use pg_dump\n');
  });
});
