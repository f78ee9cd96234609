/**
 * Backup and restore of the embedded database (CLI `db backup | restore`):
 * PGlite's own data-directory tarball (`dumpDataDir`, loaded again through
 * `loadDataDir`). Both hold the data-directory lock (data-dir-lock.ts): while
 * the server runs they fail at once with DataDirBusyError, since a copy taken
 * under a running server would not be consistent, and a restore under it would
 * corrupt it.
 */
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir } from './data-dir-lock.ts';
import { startPglite } from './database.ts';

/** A gzipped tarball of the data directory. */
export async function dumpEmbeddedDatabase(dataDir: string): Promise<Blob> {
  const lock = lockDataDir(dataDir);
  try {
    const pglite = await startPglite({ directory: path.join(dataDir, 'pglite') });
    try {
      return await pglite.dumpDataDir('gzip');
    } finally {
      await pglite.close();
    }
  } finally {
    lock.release();
  }
}

export interface CheckedDump {
  /** How many migrations the dump holds. */
  migrations: number;
  /** The fingerprint of the encryption key its database was set up with (a server stores it at its first start), if any. */
  keyFingerprint: Buffer | undefined;
}

/** What the dump holds, or undefined when it is no PGlite dump of this application's database. */
export async function checkDump(dump: Blob): Promise<CheckedDump | undefined> {
  let pglite: Awaited<ReturnType<typeof startPglite>> | undefined;
  try {
    pglite = await startPglite({ load: dump });
    const result = await pglite.query<{ count: number }>('select count(*)::int as count from schema_migrations');
    const migrations = result.rows[0]?.count;
    if (migrations === undefined) return undefined;
    const hasCheck = await pglite.query<{ found: boolean }>('select to_regclass(\'encryption_key_check\') is not null as found');
    const fingerprint = hasCheck.rows[0]?.found
      ? (await pglite.query<{ fingerprint: Uint8Array }>('select fingerprint from encryption_key_check limit 1')).rows[0]?.fingerprint
      : undefined;
    return { migrations, keyFingerprint: fingerprint === undefined ? undefined : Buffer.from(fingerprint) };
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

/**
 * Replaces the data directory's database with the dump (the caller checked it, and whether replacing
 * is wanted). The dump is loaded beside the database first: a load that fails leaves the old one as it
 * was. `beforeSwap` runs under the lock once the dump is loaded, before the database is replaced (the
 * CLI writes the backup's keys then).
 */
export async function restoreEmbeddedDatabase(dataDir: string, dump: Blob, beforeSwap: () => Promise<void> = async () => {}): Promise<void> {
  const lock = lockDataDir(dataDir);
  try {
    const dir = path.join(dataDir, 'pglite');
    const loading = `${dir}.restoring`;
    rmSync(loading, { recursive: true, force: true });
    try {
      const pglite = await startPglite({ directory: loading, load: dump });
      await pglite.close();
      await beforeSwap();
    } catch (error) {
      rmSync(loading, { recursive: true, force: true });
      throw error;
    }
    // The old database aside, the new one in, then the old one gone: at no moment is there none.
    const replaced = `${dir}.replaced`;
    rmSync(replaced, { recursive: true, force: true });
    if (existsSync(dir)) renameSync(dir, replaced);
    renameSync(loading, dir);
    rmSync(replaced, { recursive: true, force: true });
  } finally {
    lock.release();
  }
}
