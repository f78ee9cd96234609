/**
 * `db backup FILE | restore FILE` for the embedded database (db/embedded-backup.ts)
 * and the keys the data directory generated (backup-archive.ts): a backup
 * brings a deployment back on another machine. On PostgreSQL its own tools do
 * this, consistently while the server runs.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import { DataDirBusyError } from '../db/data-dir-lock.ts';
import { checkDump, dumpEmbeddedDatabase, isEmbeddedDatabaseEmpty, restoreEmbeddedDatabase } from '../db/embedded-backup.ts';
import { matchesFingerprint } from '../oauth/keys/key-check.ts';
import { ENCRYPTION_KEY_FILE, existingEncryptionKey, generatedKeyFiles, SIGNING_KEY_FILE } from '../oauth/keys/key-material.ts';
import { logSecurityEvent } from '../ops/security-events.ts';
import { DamagedBackup, readBackup, writeBackup } from './backup-archive.ts';
import { RefusedInput, type CliCommand, type CliContext } from './command.ts';

const FILE = { name: 'file', value: 'FILE', help: 'the backup file (a gzipped tarball: the database and the generated keys)' };

export const dbBackupCommand: CliCommand = {
  words: ['db', 'backup'],
  summary: 'copy the embedded database and its generated keys into FILE (the server must be stopped)',
  details: [
    'A running server holds the embedded database: stop it first. On PostgreSQL (DATABASE_URL) use pg_dump.',
    'The file holds the keys generated in the data directory (keys/): keep it as safe as they are. Keys set by',
    'OAUTH_PRIVATE_KEY(_FILE) or OAUTH_ENCRYPTION_KEY(_FILE) are not in it; a restore needs them set as they are now.',
  ],
  arguments: [FILE],
  options: { force: { type: 'boolean', help: 'overwrite FILE if it exists' } },
  async run(context, values) {
    const dataDir = embeddedDataDir(context, 'pg_dump');
    const file = values.file as string;
    // Opening the directory would create an empty database there, and a backup of it look like success.
    if (isEmbeddedDatabaseEmpty(dataDir)) {
      throw new RefusedInput(`${dataDir} holds no embedded database: nothing to back up (DATA_DIR names the server's data directory; it defaults to ./data)`);
    }
    const { dump, keys } = await whileStopped(async () => ({ dump: await dumpEmbeddedDatabase(dataDir), keys: await readGeneratedKeys(context.config) }));
    const bytes = await writeBackup({ database: dump, keys });
    try {
      // It holds the keys, digests and encrypted keys: readable by its owner only, also where --force
      // overwrites a file that was readable by others (a mode given to writeFile applies to a new file only).
      await writeFile(file, bytes, { mode: 0o600, flag: values.force ? 'w' : 'wx' });
      await chmod(file, 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new RefusedInput(code === 'EEXIST' ? `${file} exists: choose another name, or --force to overwrite it` : `cannot write ${file}: ${code ?? (error as Error).message}`);
    }
    const names = [...keys.keys()];
    // Stored in the database copied, after the copy (which stays as it was): opening it brings it to this version's migrations.
    logSecurityEvent(context.events, { event: 'database.backed_up', keys: names, actorId: null });
    const configured = configuredKeyVariables(context.config);
    return {
      json: { file, bytes: bytes.length, keys: names },
      text: [
        `Backed up the embedded database in ${dataDir}${names.length > 0 ? ` and its keys (${names.map((n) => `keys/${n}`).join(', ')})` : ''} to ${file} (${bytes.length} bytes).`,
        ...(names.length > 0 ? ['The file holds the keys that decrypt its secrets: keep it as safe as the keys themselves.'] : []),
        ...(configured.length > 0 ? [`Not in it: the keys set by ${configured.join(' and ')}; a restore needs them as they are now.`] : []),
      ],
    };
  },
};

export const dbRestoreCommand: CliCommand = {
  words: ['db', 'restore'],
  summary: 'replace the embedded database and its generated keys with a db backup FILE (the server must be stopped)',
  details: [
    'Refuses a data directory that holds a database unless --force. On PostgreSQL (DATABASE_URL) use pg_restore or psql.',
    'The backup\'s keys replace those in the data directory (keys/), but for a key set by configuration. Refused,',
    'changing nothing, when the encryption key the server would then use is not the one the backup\'s database was set up with.',
  ],
  arguments: [FILE],
  options: { force: { type: 'boolean', help: 'replace the database the data directory holds' } },
  async run(context, values) {
    const dataDir = embeddedDataDir(context, 'pg_restore or psql');
    const file = values.file as string;
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      throw new RefusedInput(`cannot read ${file}: ${error.code ?? error.message}`);
    });
    const backup = await readBackup(bytes, [SIGNING_KEY_FILE, ENCRYPTION_KEY_FILE]).catch((error: unknown) => {
      if (error instanceof DamagedBackup) throw new RefusedInput(`${file} is a damaged db backup (cut short, or altered): nothing was restored`);
      throw error;
    });
    const checked = await checkDump(backup.database);
    if (checked === undefined) throw new RefusedInput(`${file} is not a backup of this application's embedded database (db backup writes one)`);
    if (!values.force && !isEmbeddedDatabaseEmpty(dataDir)) {
      throw new RefusedInput(`${dataDir} already holds a database: --force replaces it (back it up first with db backup)`);
    }
    const generated = generatedKeyFiles(context.config);
    const keys = new Map([...backup.keys].filter(([name]) => generated.includes(name)));
    await refuseAnotherEncryptionKey(context.config, file, keys, checked.keyFingerprint);
    await whileStopped(() => restoreEmbeddedDatabase(dataDir, backup.database, () => writeKeys(context.config, keys)));
    const names = [...keys.keys()];
    // The event goes into the restored database, which opening it brings to this version's migrations (as a start would):
    // its audit log says from when on it is a copy.
    await context.database().catch((error: unknown) => {
      throw new RefusedInput(`${file} was restored into ${dataDir}, but bringing it to this version failed: `
        + `${error instanceof Error ? error.message : String(error)}; the server's start would fail likewise. `
        + 'Restore another backup, or one of this version (restore --force replaces it)');
    });
    const appliedNow = context.appliedMigrations.length;
    logSecurityEvent(context.events, { event: 'database.restored', migrations: checked.migrations, keys: names, actorId: null });
    return {
      json: { file, dataDir, migrations: checked.migrations, appliedNow, keys: names },
      text: [
        `Restored ${file} into ${dataDir}${names.length > 0 ? ` with its keys (${names.map((n) => `keys/${n}`).join(', ')})` : ''} `
          + `(its database had ${checked.migrations} migrations: ${appliedNow > 0 ? `${appliedNow} more of this version were applied now` : 'all of this version'}).`,
        'What was ended, revoked or changed since the backup was taken is as it was then: sessions, app grants, disabled members,',
        'passwords, client secrets and signing keys. End or change them again where that matters (sessions revoke, token revoke,',
        'user disable, client rotate-secret, keys rotate).',
      ],
    };
  },
};

/** The key files the data directory generated and uses, as they are. */
async function readGeneratedKeys(config: Config): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  for (const name of generatedKeyFiles(config)) {
    const text = await readFile(path.join(config.dataDir, 'keys', name), 'utf8').catch(() => undefined);
    if (text !== undefined) keys.set(name, text);
  }
  return keys;
}

function configuredKeyVariables(config: Config): string[] {
  return [
    ...(config.oauthPrivateKey !== undefined ? ['OAUTH_PRIVATE_KEY'] : config.oauthPrivateKeyFile !== undefined ? ['OAUTH_PRIVATE_KEY_FILE'] : []),
    ...(config.oauthEncryptionKey !== undefined ? ['OAUTH_ENCRYPTION_KEY'] : config.oauthEncryptionKeyFile !== undefined ? ['OAUTH_ENCRYPTION_KEY_FILE'] : []),
  ];
}

/**
 * The server refuses to start on a database set up with another encryption key (key-check.ts): the
 * restore refuses first, changing nothing, and says which key it compared. `keys`: the backup's
 * generated key files that the restore writes.
 */
async function refuseAnotherEncryptionKey(config: Config, file: string, keys: ReadonlyMap<string, string>, fingerprint: Buffer | undefined): Promise<void> {
  if (fingerprint === undefined) return;
  const existingFile = path.join(config.dataDir, 'keys', ENCRYPTION_KEY_FILE);
  const fromBackup = keys.get(ENCRYPTION_KEY_FILE);
  const generatedText = fromBackup ?? await readFile(existingFile, 'utf8').catch(() => undefined);
  let key: Uint8Array | undefined;
  try {
    key = await existingEncryptionKey(config, generatedText);
  } catch (error) {
    if (error instanceof ConfigError) throw new RefusedInput(`${error.message}; nothing was restored`);
    throw error;
  }
  const configured = configuredKeyVariables(config).find((name) => name.startsWith('OAUTH_ENCRYPTION_KEY'));
  if (key === undefined) {
    throw new RefusedInput(`${file} holds no encryption key (a backup of an earlier version, or one whose keys were set by configuration) and ${existingFile} does not exist: `
      + 'the database\'s signing keys, refresh tokens and client secrets need the key it was set up with. Set OAUTH_ENCRYPTION_KEY '
      + `(or copy the old data directory's keys/ into ${path.dirname(existingFile)}) and restore again; nothing was restored`);
  }
  if (!matchesFingerprint({ encryptionKey: key }, fingerprint)) {
    const label = configured ?? (fromBackup !== undefined ? `the backup's keys/${ENCRYPTION_KEY_FILE}` : existingFile);
    throw new RefusedInput(`${label} is not the encryption key the backup's database was set up with: the server would refuse to start on it; nothing was restored`);
  }
}

/** Each key file replaced whole (written beside it, then renamed), readable by its owner only. */
async function writeKeys(config: Config, keys: ReadonlyMap<string, string>): Promise<void> {
  if (keys.size === 0) return;
  const dir = path.join(config.dataDir, 'keys');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, text] of keys) {
    const target = path.join(dir, name);
    await writeFile(`${target}.restoring`, text, { mode: 0o600 });
    await rename(`${target}.restoring`, target);
  }
}

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
