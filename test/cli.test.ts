import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.ts';
import { openDatabase } from '../src/db/database.ts';

// The CLI on its own embedded database directory, as an operator runs it.
let dataDir: string;
beforeAll(async () => { dataDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-')); });
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: { write: (s: string) => { out += s; } },
    err: { write: (s: string) => { err += s; } },
    env: { NODE_ENV: 'test', DATA_DIR: dataDir },
  });
  return { code, out, err };
}

/** Every user and region in the CLI's data directory (opened once the CLI has let go of it). */
async function storedRows(): Promise<{ users: string[]; regions: string[] }> {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const users = await handle.db.selectFrom('users').select('email').orderBy('id').execute();
    const regions = await handle.db.selectFrom('regions').select('name').orderBy('id').execute();
    return { users: users.map((u) => u.email), regions: regions.map((r) => r.name) };
  } finally {
    await handle.close();
  }
}

describe('CLI', () => {
  it('migrate creates the schema and is harmless the second time', async () => {
    const first = await cli('migrate', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out).applied).toContain('001_accounts');
    const second = await cli('migrate', '--json');
    expect(JSON.parse(second.out)).toEqual({ applied: [] });
    expect((await cli('migrate')).out).toBe('Database schema is up to date.\n');
  });

  it('region add returns the id; with a parent and a type', async () => {
    const country = await cli('region', 'add', '--name', 'Österreich', '--type', 'country', '--json');
    expect(country.code).toBe(0);
    const { id } = JSON.parse(country.out);
    expect(id).toBeGreaterThan(0);
    const group = await cli('region', 'add', '--name', 'AG Wien', '--parent', String(id), '--type', 'working-group', '--json');
    expect(JSON.parse(group.out)).toEqual({ id: id + 1, name: 'AG Wien', type: 'working-group', parentId: id });
    expect((await cli('region', 'add', '--name', 'Graz')).out).toMatch(/^Region \d+ created: Graz \(region\)\n$/);
  });

  it('region add refuses bad input with a clear message and a non-zero exit', async () => {
    const missing = await cli('region', 'add');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('error: --name is required');
    expect((await cli('region', 'add', '--name', 'X', '--type', 'planet')).err).toContain('--type must be one of');
    expect((await cli('region', 'add', '--name', 'X', '--parent', 'abc')).code).toBe(2);
    const unknownParent = await cli('region', 'add', '--name', 'X', '--parent', '9999', '--json');
    expect(unknownParent.code).toBe(1);
    expect(JSON.parse(unknownParent.out)).toEqual({ error: 'The request is invalid.', errors: [{ field: 'parent', message: 'region 9999 does not exist' }] });
  });

  it('user add creates a user with role, regions and ambassadorships', async () => {
    const region = JSON.parse((await cli('region', 'add', '--name', 'Linz', '--json')).out).id;
    const result = await cli('user', 'add', '--email', 'ada@example.test', '--password', 'long enough', '--first-name', 'Ada',
      '--last-name', 'Apfel', '--role', 'ambassador', '--region', String(region), '--ambassador-of', String(region), '--json');
    expect(result.code).toBe(0);
    const created = JSON.parse(result.out);
    expect(created).toEqual({ id: expect.any(Number), email: 'ada@example.test', firstName: 'Ada', lastName: 'Apfel',
      role: 'ambassador', regionIds: [region], ambassadorOf: [region] });
    expect(result.out).not.toContain('long enough');
  });

  it('user add names every bad field and writes nothing', async () => {
    const before = await storedRows();
    const result = await cli('user', 'add', '--email', 'not-an-email', '--password', 'short', '--first-name', 'A', '--last-name', 'B', '--region', '424242');
    expect(result.code).toBe(1);
    expect(result.err).toContain('--email: must be a valid email address');
    expect(result.err).toContain('--password: must be at least 8 characters');
    expect(result.err).toContain('--region: region 424242 does not exist');
    expect((await cli('user', 'add', '--email', 'x@example.test')).err).toContain('--password is required');
    expect((await cli('user', 'add', '--bogus')).code).toBe(2);
    expect((await cli('user', 'add', '--email', 'a@b.de', '--password', 'longenough', '--first-name', 'A', '--last-name', 'B', '--role', 'king')).err)
      .toContain('--role must be one of foodsharer, foodsaver, store-manager, ambassador, orga');
    const duplicate = await cli('user', 'add', '--email', 'ADA@example.test', '--password', 'long enough', '--first-name', 'A', '--last-name', 'B');
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('--email: is already registered');
    expect(await storedRows()).toEqual(before);
  });

  it('refuses NUL bytes and other control characters in emails and names with a clear message, writing nothing', async () => {
    const before = await storedRows();
    const result = await cli('user', 'add', '--email', 'a\u0000b@example.test', '--password', 'long enough',
      '--first-name', 'A\u0000', '--last-name', 'B\nC', '--json');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toEqual({ error: 'The request is invalid.', errors: [
      { field: 'email', message: 'must be a valid email address' },
      { field: 'firstName', message: 'must not contain control characters' },
      { field: 'lastName', message: 'must not contain control characters' },
    ] });
    const region = await cli('region', 'add', '--name', 'Nul\u0000stadt');
    expect(region.code).toBe(1);
    expect(region.err).toBe('error: The request is invalid.\n  --name: must not contain control characters\n');
    expect(await storedRows()).toEqual(before);
  });

  it('unknown commands print the usage and exit 2', async () => {
    const result = await cli('frobnicate');
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown command "frobnicate"');
    expect(result.err).toContain('user add --email E');
  });

  it('fails at once with a clear message while another process holds the embedded database', async () => {
    const holder = await openDatabase({ kind: 'pglite', dataDir });
    try {
      const result = await cli('region', 'add', '--name', 'Blocked');
      expect(result.code).toBe(1);
      expect(result.err).toContain(`is in use by process ${process.pid}`);
      expect(result.err).toContain('DATABASE_URL');
    } finally {
      await holder.close();
    }
    expect((await cli('region', 'add', '--name', 'Unblocked')).code).toBe(0);
  });
});

describe('CLI demo', () => {
  it('refuses to load the demo dataset in production, before touching the keys or the database', async () => {
    const productionDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-prod-'));
    try {
      for (const json of [false, true]) {
        let out = '';
        let err = '';
        const code = await runCli(json ? ['demo', '--json'] : ['demo'], {
          out: { write: (s: string) => { out += s; } },
          err: { write: (s: string) => { err += s; } },
          // Nothing listens on port 1: reaching for the database would fail with a connection error instead.
          env: { NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unreachable', DATA_DIR: productionDir },
        });
        expect(code).toBe(1);
        const message = 'The demo dataset is never loaded in production (NODE_ENV=production): its accounts have published passwords.';
        if (json) expect(JSON.parse(out)).toEqual({ error: message });
        else expect(err).toBe(`error: ${message}\n`);
      }
      expect(await readdir(productionDir)).toEqual([]); // no keys generated
    } finally {
      await rm(productionDir, { recursive: true, force: true });
    }
  });

  it('loads the demo dataset into an empty database and prints it with ids, once', async () => {
    const emptyDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-demo-'));
    try {
      const run = (...argv: string[]) => runCli(argv, { out: { write: (s: string) => { output += s; } }, err: { write: (s: string) => { errors += s; } }, env: { NODE_ENV: 'test', DATA_DIR: emptyDir } });
      let output = '';
      let errors = '';
      expect(await run('demo', '--json')).toBe(0);
      const demo = JSON.parse(output);
      expect(demo.regions.map((r: { name: string }) => r.name)).toEqual(expect.arrayContaining(['Deutschland', 'Berlin', 'AG Öffentlichkeitsarbeit Berlin']));
      expect(demo.regions.find((r: { type: string }) => r.type === 'working-group')).toBeDefined();
      const roles = demo.users.map((u: { role: string }) => u.role);
      expect(roles).toEqual(expect.arrayContaining(['foodsharer', 'foodsaver', 'store-manager', 'ambassador', 'orga']));
      for (const user of demo.users) expect(user).toMatchObject({ id: expect.any(Number), email: expect.any(String), password: 'demo-password' });
      output = '';
      expect(await run('demo')).toBe(1);
      expect(errors).toContain('only into an empty database');
    } finally {
      await rm(emptyDir, { recursive: true, force: true });
    }
  });
});

describe('the package bin (bin/foodsharing.js)', () => {
  const BIN = fileURLToPath(new URL('../bin/foodsharing.js', import.meta.url));
  const run = (...argv: string[]) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...argv], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir } },
      (error, out, err) => resolve({ code: error ? (error.code as number) : 0, out, err }));
  });

  it('prints the usage with --help and exits 0', async () => {
    const result = await run('--help');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^Usage: npm run cli -- <command> \[options\] \[--json\]\n\nCommands:\n {2}migrate\n/);
    expect(result.out).toContain('  demo\n');
    expect(result.err).toBe('');
  });

  it('exits 2 with the usage on an unknown command', async () => {
    const result = await run('frobnicate');
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^error: unknown command "frobnicate"\nUsage: npm run cli/);
  });

  it('runs a command on the configured data directory', async () => {
    const first = await run('migrate', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toEqual({ applied: expect.any(Array) });
    const second = await run('migrate');
    expect(second).toEqual({ code: 0, out: 'Database schema is up to date.\n', err: '' });
  });
});
