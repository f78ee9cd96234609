/**
 * Once per test run: a migrated embedded database, dumped to a file that each
 * test file loads instead of running initdb and every migration again; and the
 * same database as a data directory on disk, for the CLI's tests to copy
 * (test/cli/cli-helpers.ts).
 *
 * Both are kept between runs in os.tmpdir()/fs-test-database-cache, under a
 * digest of everything they are made from (PGlite's version, the migrations,
 * the code that applies them, this file): initdb and the migrations take ~3 s
 * before the first test file can start, and a later run with the same inputs
 * copies the result instead. A changed input makes a new entry; other entries
 * are removed once an hour old. FS_TEST_DATABASE_CACHE=off builds them anew.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    /** A DATA_DIR holding only `pglite/`, migrated: copy it, never open it. */
    migratedDataDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = path.join(tmpdir(), 'fs-test-database-cache');
/** In a cache entry: the snapshot each test file loads, and the data directory (`data/pglite`) copied per run. */
const SNAPSHOT = 'snapshot.tar';
const DATA = 'data';

/** A digest of every input of the migrated database. */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const migrations = path.join(ROOT, 'src/db/migrations');
  const files = [
    path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'),
    path.join(ROOT, 'node_modules/kysely/package.json'),
    ...readdirSync(migrations).sort().map((name) => path.join(migrations, name)),
    path.join(ROOT, 'src/db/migrate.ts'),
    path.join(ROOT, 'src/db/pglite-dialect.ts'),
    fileURLToPath(import.meta.url),
  ];
  for (const file of files) hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 24);
}

/** Builds a cache entry in `dir`: initdb, every migration, the data directory and the snapshot. */
async function build(dir: string): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { Kysely } = await import('kysely');
  const { migrate } = await import('../../src/db/migrate.ts');
  const { PGliteDialect } = await import('../../src/db/pglite-dialect.ts');
  // WAL segments of 1 MB instead of 16: the snapshot below is unpacked for every test file, and a 16 MB
  // segment was most of its bytes. Nothing in the application depends on the segment size; the data
  // directory copied by the CLI and start tests has the same (a first start's initdb makes 16 MB ones).
  const pglite = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  await migrate(new Kysely({ dialect: new PGliteDialect(pglite) }));
  await mkdir(path.join(dir, DATA));
  const onDisk = await PGlite.create({ dataDir: path.join(dir, DATA, 'pglite'), loadDataDir: await pglite.dumpDataDir('none') });
  await onDisk.close();
  // The snapshot every test file loads (once or more, ~250 times a run) without the template databases, which
  // only CREATE DATABASE reads: a third fewer bytes and half the files to unpack, ~0.1 s of CPU less per load.
  // The application works in the database `postgres` (the data directory above keeps all three).
  for (const template of ['template0', 'template1']) {
    await pglite.exec(`alter database ${template} is_template false`);
    await pglite.exec(`drop database ${template}`);
  }
  await pglite.exec('checkpoint');
  const dump = await pglite.dumpDataDir('none');
  await writeFile(path.join(dir, SNAPSHOT), Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
}

const exists = (file: string) => stat(file).then(() => true, () => false);

/** The cache entry for the current inputs, built when missing; undefined with the cache turned off. */
async function cachedEntry(): Promise<string | undefined> {
  if (process.env.FS_TEST_DATABASE_CACHE === 'off') return undefined;
  const key = inputsDigest();
  const entry = path.join(CACHE, key);
  if (await exists(path.join(entry, SNAPSHOT))) return entry;
  await mkdir(CACHE, { recursive: true });
  const building = await mkdtemp(path.join(CACHE, `.building-${key}-`));
  try {
    await build(building);
    // Complete or not there at all: a concurrent run that got there first wins, and this copy goes.
    await rename(building, entry).catch(() => undefined);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  // Entries of other inputs (another checkout may still use its own) and builds left by a killed run, once an hour old.
  for (const name of await readdir(CACHE)) {
    const other = path.join(CACHE, name);
    const modified = (await stat(other).catch(() => undefined))?.mtimeMs ?? Date.now();
    if (name !== key && Date.now() - modified > 3_600_000) await rm(other, { recursive: true, force: true });
  }
  return entry;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const entry = await cachedEntry();
  const run = await mkdtemp(path.join(tmpdir(), 'fs-test-database-'));
  try {
    if (entry) {
      // This run's own copies: nothing a run does can change the cache entry.
      await cp(path.join(entry, SNAPSHOT), path.join(run, SNAPSHOT));
      await cp(path.join(entry, DATA), path.join(run, DATA), { recursive: true });
    } else {
      await build(run);
    }
  } catch (error) {
    await rm(run, { recursive: true, force: true });
    throw error;
  }
  project.provide('pgliteSnapshot', path.join(run, SNAPSHOT));
  project.provide('migratedDataDir', path.join(run, DATA));
  return async () => {
    await rm(run, { recursive: true, force: true });
  };
}
