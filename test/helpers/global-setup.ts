/**
 * Once per test run: a migrated embedded database, dumped to a file that each
 * test file loads instead of running initdb and every migration again; and the
 * same database as a data directory on disk, for the CLI's tests to copy
 * (test/cli/cli-helpers.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { PGliteDialect } from '../../src/db/pglite-dialect.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    /** A DATA_DIR holding only `pglite/`, migrated: copy it, never open it. */
    migratedDataDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const file = path.join(tmpdir(), `fs-test-snapshot-${process.pid}-${Date.now()}.tar`);
  // WAL segments of 1 MB instead of 16: the snapshot below is unpacked for every test file, and a 16 MB
  // segment was most of its bytes. Nothing in the application depends on the segment size; the data
  // directory copied by the CLI and start tests has the same (a first start's initdb makes 16 MB ones).
  const pglite = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  await migrate(new Kysely({ dialect: new PGliteDialect(pglite) }));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-test-data-dir-'));
  const onDisk = await PGlite.create({ dataDir: path.join(dataDir, 'pglite'), loadDataDir: await pglite.dumpDataDir('none') });
  await onDisk.close();
  // The snapshot every test file loads (once or more, ~250 times a run) without the template databases, which
  // only CREATE DATABASE reads: a third fewer bytes and half the files to unpack, ~0.1 s of CPU less per load.
  // The application works in the database `postgres` (the data directories above keep all three).
  for (const template of ['template0', 'template1']) {
    await pglite.exec(`alter database ${template} is_template false`);
    await pglite.exec(`drop database ${template}`);
  }
  await pglite.exec('checkpoint');
  const dump = await pglite.dumpDataDir('none');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  project.provide('pgliteSnapshot', file);
  project.provide('migratedDataDir', dataDir);
  return async () => {
    await rm(file, { force: true });
    await rm(dataDir, { recursive: true, force: true });
  };
}
