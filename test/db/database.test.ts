import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DataDirBusyError, LOCK_FILE, lockDataDir, ownerLine } from '../../src/db/data-dir-lock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { DATABASE_UNAVAILABLE, DatabaseUnavailableError } from '../../src/db/unavailable.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOCK_MODULE = fileURLToPath(new URL('../../src/db/data-dir-lock.ts', import.meta.url));
const HAS_PROC = existsSync('/proc/self/stat');

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
});

describe('embedded database directory', () => {
  it('persists data across restarts', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fs-db-'));
    try {
      const first = await openDatabase({ kind: 'pglite', dataDir: dir });
      await migrate(first.db);
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

describe('data directory lock', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(path.join(tmpdir(), 'fs-lock-')); });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const lockFile = () => path.join(dir, LOCK_FILE);

  it('records the owner as "<pid> <start time>" and removes the file on release', async () => {
    const lock = lockDataDir(dir);
    const [pid, startTime] = (await readFile(lockFile(), 'utf8')).split(' ');
    expect(pid).toBe(String(process.pid));
    if (HAS_PROC) expect(startTime).toMatch(/^\d+$/);
    expect(() => lockDataDir(dir)).toThrow(DataDirBusyError);
    lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a lock naming this process\'s own pid that this process does not hold (restarted container: pid 1 again)', async () => {
    for (const content of [String(process.pid), `${process.pid} 1`, ownerLine()]) {
      await writeFile(lockFile(), content);
      const lock = lockDataDir(dir);
      expect(await readFile(lockFile(), 'utf8')).toBe(ownerLine());
      lock.release();
    }
  });

  it.runIf(HAS_PROC)('treats a live pid with another start time as a reused pid (stale), and with its own as the owner', async () => {
    await writeFile(lockFile(), `${process.ppid} 1`);
    const lock = lockDataDir(dir);
    lock.release();
    await writeFile(lockFile(), ownerLine(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
    await writeFile(lockFile(), String(process.ppid)); // written without a start time: the live pid decides
    expect(() => lockDataDir(dir)).toThrow(`in use by process ${process.ppid}`);
  });

  it('waits for a takeover in progress, and clears a claim its process abandoned', async () => {
    await writeFile(lockFile(), '999999999');
    const claim = `${lockFile()}.takeover-${(await stat(lockFile())).ino}`;
    await link(lockFile(), claim);
    const started = Date.now();
    const lock = lockDataDir(dir);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    lock.release();
  });

  it('lets exactly one of several processes take over a stale lock at the same moment', async () => {
    await writeFile(lockFile(), '999999999');
    const startAt = Date.now() + 4_000;
    const code = `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
      while (Date.now() < ${startAt});
      try { lockDataDir(${JSON.stringify(dir)}); console.log('locked'); } catch (e) { console.log(e.name); }
      process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
    const children = Array.from({ length: 5 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] }));
    const results = await Promise.all(children.map((child) => new Promise<string>((resolve) => {
      child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    })));
    for (const child of children) child.stdin!.end();
    await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    expect(results.sort()).toEqual(['DataDirBusyError', 'DataDirBusyError', 'DataDirBusyError', 'DataDirBusyError', 'locked']);
  }, 30_000);
});

describe('PostgreSQL outages are told by error code, not message text', () => {
  /** A TCP server on a free port; `onSocket` decides what happens to each connection. */
  async function tcpServer(onSocket: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
    const server = createServer(onSocket);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('a connection the server drops at once is DATABASE_UNAVAILABLE; system errors keep their code', async () => {
    const dropping = await tcpServer((socket) => socket.destroy());
    const handle = await openDatabase({ kind: 'postgres', url: `postgres://x@127.0.0.1:${dropping.port}/x`, poolSize: 1 });
    try {
      const error = await handle.ping().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE, message: expect.stringMatching(/^Connection terminated/) });
    } finally {
      await handle.close();
      await dropping.close();
    }
    const refused = await openDatabase({ kind: 'postgres', url: 'postgres://x@127.0.0.1:1/x', poolSize: 1 });
    try {
      expect(await refused.ping().catch((e: unknown) => e)).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await refused.close();
    }
  });

  it.runIf(TEST_DATABASE_URL)('a connection lost during a query is DATABASE_UNAVAILABLE; a query error keeps its SQLSTATE', async () => {
    const target = new URL(TEST_DATABASE_URL!);
    const sockets: Socket[] = [];
    const proxy = await tcpServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => {});
      upstream.on('error', () => {});
    });
    const url = new URL(TEST_DATABASE_URL!);
    url.host = `127.0.0.1:${proxy.port}`;
    const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
    try {
      expect(await sql`select 1/0`.execute(handle.db).catch((e: unknown) => e)).toMatchObject({ code: '22012' });
      const slow = sql`select pg_sleep(5)`.execute(handle.db).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      for (const socket of sockets) socket.destroy();
      const error = await slow;
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE });
    } finally {
      await handle.close();
      await proxy.close();
    }
  });
});
