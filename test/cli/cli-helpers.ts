/**
 * The CLI as an operator runs it: the package's bin (bin/foodsharing.js) as a
 * real process on its own embedded data directory, passwords on standard
 * input; and the application opened on that directory between commands, to
 * see their effects through HTTP (login, sessions, tokens).
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
import { openDatabase, type DB } from '../../src/db/database.ts';
import { loadKeyMaterial, type KeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';

export const BIN = fileURLToPath(new URL('../../bin/foodsharing.js', import.meta.url));

export interface CliRun { code: number | null; out: string; err: string }

/**
 * A new DATA_DIR: empty, or `migrated` (a copy of the run's migrated embedded
 * database, test/helpers/global-setup.ts) for tests of what commands do rather
 * than of the first command creating the database, which takes seconds of CPU.
 */
export async function makeDataDir({ migrated = false } = {}): Promise<{ dataDir: string; remove(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-'));
  if (migrated) await copyMigratedDatabase(dataDir);
  return { dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

/** `foodsharing …argv` as a process; `input` is its standard input (closed after). */
export function runBin(dataDir: string, argv: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
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
  const code = await runCli(argv, {
    out: { write: (s: string) => { out += s; } },
    err: { write: (s: string) => { err += s; } },
    env: { NODE_ENV: 'test', DATA_DIR: dataDir, ...env },
    input: Readable.from([input]),
  });
  return { code, out, err };
}

/** Runs `work` against the application on the CLI's data directory (closed afterwards, so the CLI may open it again). */
export async function withApp<T>(dataDir: string, work: (app: FastifyInstance, db: DB, keys: KeyMaterial) => Promise<T>): Promise<T> {
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const keys = await loadKeyMaterial(config);
    const app = await buildApp(config, { database, keys });
    try {
      return await work(app, database.db, keys);
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

/** Only the database (closed afterwards). */
export async function withDatabase<T>(dataDir: string, work: (db: DB) => Promise<T>): Promise<T> {
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
