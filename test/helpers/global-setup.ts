/**
 * Once per test run: a migrated embedded database, dumped to a file that each
 * test file loads instead of running initdb and every migration again.
 */
import { rm, writeFile } from 'node:fs/promises';
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
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const file = path.join(tmpdir(), `fs-test-snapshot-${process.pid}-${Date.now()}.tar`);
  const pglite = await PGlite.create();
  await migrate(new Kysely({ dialect: new PGliteDialect(pglite) }));
  const dump = await pglite.dumpDataDir('none');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  project.provide('pgliteSnapshot', file);
  return () => rm(file, { force: true });
}
