/**
 * `db backup FILE | restore FILE` for the embedded database (db/embedded-backup.ts).
 * On PostgreSQL its own tools do this, consistently while the server runs.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { DataDirBusyError } from '../db/data-dir-lock.ts';
import { checkDump, dumpEmbeddedDatabase, isEmbeddedDatabaseEmpty, restoreEmbeddedDatabase } from '../db/embedded-backup.ts';
import { RefusedInput, type CliCommand, type CliContext } from './command.ts';

const FILE = { name: 'file', value: 'FILE', help: 'the backup file (a gzipped tarball of the data directory)' };

export const dbBackupCommand: CliCommand = {
  words: ['db', 'backup'],
  summary: 'copy the embedded database into FILE (the server must be stopped)',
  details: ['A running server holds the embedded database: stop it first. On PostgreSQL (DATABASE_URL) use pg_dump.'],
  arguments: [FILE],
  options: { force: { type: 'boolean', help: 'overwrite FILE if it exists' } },
  async run(context, values) {
    const dataDir = embeddedDataDir(context, 'pg_dump');
    const file = values.file as string;
    const dump = await whileStopped(() => dumpEmbeddedDatabase(dataDir));
    const bytes = Buffer.from(await dump.arrayBuffer());
    try {
      // It holds digests and encrypted keys: readable by its owner only.
      await writeFile(file, bytes, { mode: 0o600, flag: values.force ? 'w' : 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new RefusedInput(code === 'EEXIST' ? `${file} exists: choose another name, or --force to overwrite it` : `cannot write ${file}: ${code ?? (error as Error).message}`);
    }
    return { json: { file, bytes: bytes.length }, text: [`Backed up the embedded database in ${dataDir} to ${file} (${bytes.length} bytes).`] };
  },
};

export const dbRestoreCommand: CliCommand = {
  words: ['db', 'restore'],
  summary: 'replace the embedded database with a db backup FILE (the server must be stopped)',
  details: ['Refuses a data directory that holds a database unless --force. On PostgreSQL (DATABASE_URL) use pg_restore or psql.'],
  arguments: [FILE],
  options: { force: { type: 'boolean', help: 'replace the database the data directory holds' } },
  async run(context, values) {
    const dataDir = embeddedDataDir(context, 'pg_restore or psql');
    const file = values.file as string;
    const dump = new Blob([await readFile(file).catch((error: NodeJS.ErrnoException) => {
      throw new RefusedInput(`cannot read ${file}: ${error.code ?? error.message}`);
    })]);
    const migrations = await checkDump(dump);
    if (migrations === undefined) throw new RefusedInput(`${file} is not a backup of this application's embedded database (db backup writes one)`);
    if (!values.force && !isEmbeddedDatabaseEmpty(dataDir)) {
      throw new RefusedInput(`${dataDir} already holds a database: --force replaces it (back it up first with db backup)`);
    }
    await whileStopped(() => restoreEmbeddedDatabase(dataDir, dump));
    return { json: { file, dataDir, migrations }, text: [`Restored ${file} into ${dataDir} (${migrations} migrations applied in it; the server applies newer ones when it starts).`] };
  },
};

function embeddedDataDir(context: CliContext, tool: string): string {
  if (context.config.databaseUrl !== undefined) {
    throw new RefusedInput(`db backup and db restore are for the embedded database; DATABASE_URL names PostgreSQL: use ${tool}`);
  }
  return context.config.dataDir;
}

async function whileStopped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DataDirBusyError)) throw error;
    throw new RefusedInput(`the embedded database in ${error.dataDir} is in use by process ${error.pid} (is the server running?): `
      + 'a consistent copy needs it stopped. Stop the server first, or run on PostgreSQL (DATABASE_URL) and use pg_dump.');
  }
}
