/**
 * The file `db backup` writes: a gzipped tarball of the embedded database's
 * dump (`database.tar.gz`, PGlite's own data-directory tarball) and the key
 * files the data directory generated (`keys/signing-key.pem`,
 * `keys/encryption.key`), without which the stored signing keys, refresh
 * tokens and client-secret digests are of no use. A file of earlier versions
 * is the dump alone; `readBackup` takes both.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create, extract, list } from 'tar';

const DATABASE_ENTRY = 'database.tar.gz';
const KEYS_DIR = 'keys';

export interface BackupContents {
  /** PGlite's data-directory tarball. */
  database: Blob;
  /** Key files by name (`signing-key.pem`, `encryption.key`): those the data directory generated. */
  keys: Map<string, string>;
}

export async function writeBackup(contents: BackupContents): Promise<Buffer> {
  return inTemporaryDirectory(async (dir) => {
    await writeFile(path.join(dir, DATABASE_ENTRY), Buffer.from(await contents.database.arrayBuffer()), { mode: 0o600 });
    const entries = [DATABASE_ENTRY];
    if (contents.keys.size > 0) {
      await mkdir(path.join(dir, KEYS_DIR), { mode: 0o700 });
      for (const [name, text] of contents.keys) {
        await writeFile(path.join(dir, KEYS_DIR, name), text, { mode: 0o600 });
        entries.push(`${KEYS_DIR}/${name}`);
      }
    }
    const file = path.join(dir, 'backup.tar.gz');
    await create({ gzip: true, cwd: dir, file, portable: true }, entries);
    return readFile(file);
  });
}

/** The file is a backup of this format, but damaged (cut short, or its database entry is not a file). */
export class DamagedBackup extends Error {}

/**
 * The backup's contents; a file of earlier versions (the dump alone) comes back with no keys.
 * Throws {@link DamagedBackup} for a file of this format that cannot be read whole.
 */
export async function readBackup(bytes: Buffer<ArrayBuffer>, keyNames: readonly string[]): Promise<BackupContents> {
  try {
    return await unpack(bytes, keyNames);
  } catch (error) {
    if (error instanceof NotThisFormat) return { database: new Blob([bytes]), keys: new Map() };
    throw new DamagedBackup(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

class NotThisFormat extends Error {}

async function unpack(bytes: Buffer<ArrayBuffer>, keyNames: readonly string[]): Promise<BackupContents> {
  return inTemporaryDirectory(async (dir) => {
    const file = path.join(dir, 'backup.tar.gz');
    await writeFile(file, bytes, { mode: 0o600 });
    const names = new Set<string>();
    await list({ file, onReadEntry: (entry) => { names.add(entry.path); } }).catch(() => undefined);
    if (!names.has(DATABASE_ENTRY)) throw new NotThisFormat();
    const wanted = new Set([DATABASE_ENTRY, ...keyNames.map((name) => `${KEYS_DIR}/${name}`)]);
    const out = path.join(dir, 'contents');
    await mkdir(out, { mode: 0o700 });
    await extract({ file, cwd: out, strict: true, filter: (entryPath, entry) => wanted.has(entryPath) && ('type' in entry ? entry.type === 'File' : true) });
    const keys = new Map<string, string>();
    for (const name of keyNames) {
      const text = await readFile(path.join(out, KEYS_DIR, name), 'utf8').catch(() => undefined);
      if (text !== undefined) keys.set(name, text);
    }
    return { database: new Blob([await readFile(path.join(out, DATABASE_ENTRY))]), keys };
  });
}

async function inTemporaryDirectory<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'foodsharing-backup-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
