import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirBusyError, ownerLine } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { listMigrations, migrate, MIGRATION_LOCK_KEY } from '../../src/db/migrate.ts';
import { lockForTransaction } from '../../src/db/transaction.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';

let database: TestDatabase;
beforeAll(async () => { database = await createTestDatabase(); });
afterAll(() => database.drop());

describe('migrations', () => {
  it('are numbered, applied once, and a second run is harmless', async () => {
    const migrations = await listMigrations();
    expect(migrations[0]?.name).toBe('accounts');
    const versions = migrations.map((m) => m.version);
    expect(new Set(versions).size).toBe(versions.length);

    const { rows } = await sql<{ version: number }>`select version from schema_migrations order by version`.execute(database.handle.db);
    expect(rows.map((r) => r.version)).toEqual(versions);
    expect(await migrate(database.handle.db)).toEqual([]);
    const again = await sql<{ n: number }>`select count(*)::int as n from schema_migrations`.execute(database.handle.db);
    expect(again.rows[0]?.n).toBe(versions.length);
  });

  it('run concurrently on an empty embedded database without corrupting the schema: exactly one applies them', async () => {
    const empty = await openDatabase({ kind: 'pglite' });
    try {
      const results = await Promise.all([migrate(empty.db), migrate(empty.db), migrate(empty.db)]);
      const migrations = await listMigrations();
      expect(results.map((r) => r.length).sort((a, b) => a - b)).toEqual([0, 0, migrations.length]);
      const { rows } = await sql<{ version: number }>`select version from schema_migrations order by version`.execute(empty.db);
      expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
      expect(await empty.db.selectFrom('users').select('id').execute()).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it.runIf(TEST_DATABASE_URL)('serialise on PostgreSQL across connections: exactly one applies', async () => {
    const schema = `test_concurrent_${Date.now()}`;
    const admin = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, poolSize: 1 });
    await sql.raw(`create schema ${schema}`).execute(admin.db);
    const a = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 2 });
    const b = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 2 });
    try {
      const [first, second] = await Promise.all([migrate(a.db), migrate(b.db)]);
      const total = (await listMigrations()).length;
      expect([first.length, second.length].sort()).toEqual([0, total]);
    } finally {
      await a.close();
      await b.close();
      await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
      await admin.close();
    }
  });

  it.runIf(TEST_DATABASE_URL)('on PostgreSQL wait only for a migration of the same schema, not of another schema', async () => {
    const other = `test_other_${Date.now()}`;
    const admin = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, poolSize: 1 });
    await sql.raw(`create schema ${other}`).execute(admin.db);
    const holder = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema: database.schema!, poolSize: 1 });
    const same = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema: database.schema!, poolSize: 1 });
    const elsewhere = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema: other, poolSize: 1 });
    let release!: () => void;
    let held!: () => void;
    const isHeld = new Promise<void>((resolve) => { held = resolve; });
    // A migration of this file's schema in progress: its transaction holds the schema's migration lock.
    const holding = holder.db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, MIGRATION_LOCK_KEY);
      held();
      await new Promise<void>((resolve) => { release = resolve; });
    });
    try {
      await isHeld;
      const waiting = migrate(same.db);
      // Another schema's migration runs to the end while this schema's lock is held.
      expect(await migrate(elsewhere.db)).toHaveLength((await listMigrations()).length);
      // The same schema's migration is queued behind the holder: its backend waits for an advisory lock.
      await expect.poll(async () => (await sql<{ n: number }>`select count(*)::int as n from pg_locks
        where locktype = 'advisory' and not granted
          and (classid::bigint << 32 | objid::bigint) = hashtextextended(${database.schema!}, ${MIGRATION_LOCK_KEY})`
        .execute(admin.db)).rows[0]?.n, { timeout: 10_000 }).toBe(1);
      release();
      await holding;
      expect(await waiting).toEqual([]);
    } finally {
      release?.();
      await holding.catch(() => {});
      await Promise.all([holder.close(), same.close(), elsewhere.close()]);
      await sql.raw(`drop schema ${other} cascade`).execute(admin.db);
      await admin.close();
    }
  });
});

// On copies of the run's migrated database: a new directory's initdb and migrations are not the subject here
// (the first start, main/start.test.ts, and the CLI's first command, cli/cli-accounts.test.ts, create one).
describe('embedded database directory', () => {
  it('persists data across restarts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fs-db-'));
    try {
      await copyMigratedDatabase(dir);
      const first = await openDatabase({ kind: 'pglite', dataDir: dir });
      await first.db.insertInto('regions').values({ name: 'Leipzig', parent_id: null }).execute();
      await first.close();
      const second = await openDatabase({ kind: 'pglite', dataDir: dir });
      expect(await second.db.selectFrom('regions').select('name').execute()).toEqual([{ name: 'Leipzig' }]);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('can be held by one process only: a second opener fails at once with a clear message', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fs-db-'));
    try {
      await copyMigratedDatabase(dir);
      const holder = await openDatabase({ kind: 'pglite', dataDir: dir });
      const error = await openDatabase({ kind: 'pglite', dataDir: dir }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirBusyError);
      expect((error as Error).message).toContain(`in use by process ${process.pid}`);
      await holder.close();
      const reopened = await openDatabase({ kind: 'pglite', dataDir: dir });
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fs-db-'));
    try {
      await copyMigratedDatabase(dir);
      await writeFile(path.join(dir, 'embedded-db.lock'), '999999999');
      const handle = await openDatabase({ kind: 'pglite', dataDir: dir });
      expect(await readFile(path.join(dir, 'embedded-db.lock'), 'utf8')).toBe(ownerLine());
      await handle.close();
      expect(await readdir(dir)).toEqual(['pglite']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
