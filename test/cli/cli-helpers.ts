/**
 * The CLI as an operator runs it: the package's bin (bin/foodsharing.js) as a
 * real process on its own embedded data directory, passwords on standard
 * input; and the application opened on that directory between commands, to
 * see their effects through HTTP (login, sessions, tokens).
 *
 * Opening the embedded database costs ~0.2 s of CPU. A file may let its
 * in-process commands, withApp and withDatabase share one open database per
 * directory (`shareDatabase`): the commands then run on it instead of opening
 * and closing the directory themselves (runCli's `database`), and a bin run
 * closes it first, since the process must take the directory's lock itself.
 * Opening, locking and closing per command stay covered by the bin runs and by
 * the files that do not share.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { runCli } from '../../src/cli.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle, type DB } from '../../src/db/database.ts';
import { loadKeyMaterial, type KeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';

export const BIN = fileURLToPath(new URL('../../bin/foodsharing.js', import.meta.url));

export interface CliRun { code: number | null; out: string; err: string }

/**
 * A new DATA_DIR: empty, or `migrated` (a copy of the run's migrated embedded
 * database, test/helpers/global-setup.ts) for tests of what commands do rather
 * than of the first command creating the database, which takes seconds of CPU;
 * `share`: its in-process commands share one open database (`shareDatabase`).
 */
export async function makeDataDir({ migrated = false, share = false } = {}): Promise<{ dataDir: string; remove(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-'));
  if (migrated) await copyMigratedDatabase(dataDir);
  if (share) shareDatabase(dataDir);
  return { dataDir, remove: async () => { await unshareDatabase(dataDir); await rm(dataDir, { recursive: true, force: true }); } };
}

/** The directories whose database is shared, and their open database once opened. */
const shared = new Map<string, Promise<DatabaseHandle> | undefined>();

/** From now on the in-process commands, withApp and withDatabase on `dataDir` share one open database. */
export function shareDatabase(dataDir: string): void {
  if (!shared.has(dataDir)) shared.set(dataDir, undefined);
}

/** The shared open database of `dataDir`, opened on first use; undefined when the directory does not share. */
function sharedDatabase(dataDir: string): Promise<DatabaseHandle> | undefined {
  if (!shared.has(dataDir)) return undefined;
  let handle = shared.get(dataDir);
  if (!handle) {
    const opening = handle = openDatabase({ kind: 'pglite', dataDir });
    shared.set(dataDir, opening);
    // A failed opening is tried again on next use.
    opening.catch(() => { if (shared.get(dataDir) === opening) shared.set(dataDir, undefined); });
  }
  return handle;
}

/** From now on the commands on `dataDir` open and close the directory themselves again. */
export async function unshareDatabase(dataDir: string): Promise<void> {
  await releaseDatabase(dataDir);
  shared.delete(dataDir);
}

/** Closes the shared database of `dataDir` (opened again on next use), so that another opener can take the directory. */
export async function releaseDatabase(dataDir: string): Promise<void> {
  const handle = shared.get(dataDir);
  if (!handle) return;
  shared.set(dataDir, undefined);
  await (await handle.catch(() => undefined))?.close();
}

/** `foodsharing …argv` as a process; `input` is its standard input (closed after). */
export async function runBin(dataDir: string, argv: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  await releaseDatabase(dataDir);
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...argv], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir, ...options.env },
    }, (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }));
    child.stdin!.end(options.input ?? '');
  });
}

/** The same command line in this process (quicker, for the many ways input is refused). */
export async function runInProcess(dataDir: string, argv: readonly string[], input = '', env: Record<string, string> = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  const database = await sharedDatabase(dataDir);
  const code = await runCli(argv, {
    out: { write: (s: string) => { out += s; } },
    err: { write: (s: string) => { err += s; } },
    env: { NODE_ENV: 'test', DATA_DIR: dataDir, ...env },
    input: Readable.from([input]),
    ...(database ? { database } : {}),
  });
  return { code, out, err };
}

/** Runs `work` against the application on the CLI's data directory (closed afterwards, so the CLI may open it again). */
export async function withApp<T>(dataDir: string, work: (app: FastifyInstance, db: DB, keys: KeyMaterial) => Promise<T>): Promise<T> {
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const share = sharedDatabase(dataDir);
  const database = await (share ?? openDatabase({ kind: 'pglite', dataDir }));
  try {
    const keys = await loadKeyMaterial(config);
    const app = await buildApp(config, { database, keys });
    try {
      return await work(app, database.db, keys);
    } finally {
      await app.close();
    }
  } finally {
    if (!share) await database.close();
  }
}

/** Only the database (closed afterwards). */
export async function withDatabase<T>(dataDir: string, work: (db: DB) => Promise<T>): Promise<T> {
  const share = sharedDatabase(dataDir);
  if (share) return work((await share).db);
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

export async function logIn(app: FastifyInstance, email: string, password: string): Promise<{ status: number; cookie: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password } });
  const cookie = response.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { status: response.statusCode, cookie };
}
