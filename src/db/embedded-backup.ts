/**
 * Backup and restore of the embedded database (CLI `db backup | restore`):
 * PGlite's own data-directory tarball (`dumpDataDir`, loaded again through
 * `loadDataDir`). Both hold the data-directory lock (data-dir-lock.ts): while
 * the server runs they fail at once with DataDirBusyError, since a copy taken
 * under a running server would not be consistent, and a restore under it would
 * corrupt it.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir } from './data-dir-lock.ts';

const INT8_OID = 20;

async function createPglite(options: { dataDir?: string; loadDataDir?: Blob }) {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create({ ...options, parsers: { [INT8_OID]: Number } });
}

/** A gzipped tarball of the data directory. */
export async function dumpEmbeddedDatabase(dataDir: string): Promise<Blob> {
  const lock = lockDataDir(dataDir);
  try {
    const pglite = await createPglite({ dataDir: path.join(dataDir, 'pglite') });
    try {
      return await pglite.dumpDataDir('gzip');
    } finally {
      await pglite.close();
    }
  } finally {
    lock.release();
  }
}

/** How many migrations the dump holds, or undefined when it is no PGlite dump of this application's database. */
export async function checkDump(dump: Blob): Promise<number | undefined> {
  let pglite: Awaited<ReturnType<typeof createPglite>> | undefined;
  try {
    pglite = await createPglite({ loadDataDir: dump });
    const result = await pglite.query<{ count: number }>('select count(*)::int as count from schema_migrations');
    return result.rows[0]?.count;
  } catch {
    return undefined;
  } finally {
    await pglite?.close().catch(() => {});
  }
}

export function isEmbeddedDatabaseEmpty(dataDir: string): boolean {
  const dir = path.join(dataDir, 'pglite');
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/** Replaces the data directory's database with the dump (the caller checked it, and whether replacing is wanted). */
export async function restoreEmbeddedDatabase(dataDir: string, dump: Blob): Promise<void> {
  const lock = lockDataDir(dataDir);
  try {
    const dir = path.join(dataDir, 'pglite');
    rmSync(dir, { recursive: true, force: true });
    const pglite = await createPglite({ dataDir: dir, loadDataDir: dump });
    await pglite.close();
  } finally {
    lock.release();
  }
}
