/**
 * SPEC §10: a `.env` file in the working directory is read
 * by the server and the CLI (the project directory under npm); a variable of
 * the real environment wins over the file.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, readProcessEnvironment } from '../../src/config.ts';
import { BIN } from '../cli/cli-helpers.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { SERVER_FROM_ANY_DIRECTORY, start, START_TEST_TIMEOUT_MS, useStartDataDir } from './start-process.ts';

let cwd: string;
beforeEach(async () => { cwd = await mkdtemp(path.join(tmpdir(), 'fs-dotenv-')); });
afterEach(() => rm(cwd, { recursive: true, force: true }));

describe('readProcessEnvironment', () => {
  it('puts the environment over the .env file of the directory', async () => {
    await writeFile(path.join(cwd, '.env'), '# comment\nPORT=9090\nLOG_LEVEL="debug"\nDATA_DIR=./from-file\n');
    const read = readProcessEnvironment(cwd, { LOG_LEVEL: 'warn', HOME: '/home/x', UNSET: undefined });
    expect(read).toEqual({ env: { PORT: '9090', LOG_LEVEL: 'warn', DATA_DIR: './from-file', HOME: '/home/x' }, envFile: path.join(cwd, '.env') });
  });

  it('without a .env file: the environment as it is; an unreadable one is a configuration error naming it', async () => {
    const env = { PORT: '1' };
    expect(readProcessEnvironment(cwd, env)).toEqual({ env, envFile: undefined });
    await mkdir(path.join(cwd, '.env'));
    const error = (() => { try { return readProcessEnvironment(cwd, env); } catch (e) { return e; } })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([`${path.join(cwd, '.env')} cannot be read: EISDIR: illegal operation on a directory, read`]);
  });
});

const work = useStartDataDir();

describe('the server and the CLI read .env', { timeout: START_TEST_TIMEOUT_MS }, () => {
  // A refusal shows what was read without opening a database: once, in the PGlite run, is enough.
  it.skipIf(TEST_DATABASE_URL)('the server takes a setting from .env in its working directory; the environment\'s own wins', async () => {
    await writeFile(path.join(cwd, '.env'), 'PORT=abc\nLOG_LEVEL=chatty\n');
    const running = start({ DATA_DIR: work.dataDir, LOG_LEVEL: 'info' }, SERVER_FROM_ANY_DIRECTORY, cwd);
    expect(await running.exited).toBe(1);
    expect(running.output()).toBe('Invalid configuration:\n  - PORT="abc" must be a whole number from 0 to 65535\n');
  });

  it.skipIf(TEST_DATABASE_URL)('the CLI (the bin) takes DATA_DIR from .env; the environment\'s own NODE_ENV wins over the file\'s', async () => {
    // Were the file's NODE_ENV taken, migrate would refuse: production requires DATABASE_URL.
    await writeFile(path.join(cwd, '.env'), 'NODE_ENV=production\nDATA_DIR=./from-dotenv\n');
    // A migrated database there (nothing left to apply); the default ./data would be a new, empty one.
    await copyMigratedDatabase(path.join(cwd, 'from-dotenv'));
    const result = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'migrate', '--json'], { cwd, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test' } },
        (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }));
    });
    expect(result.code, result.err).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ applied: [] });
    expect(existsSync(path.join(cwd, 'data'))).toBe(false);
  });
});
