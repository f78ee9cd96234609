import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';

// `npm start` as an operator runs it: a real process, real port, real files.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TEST_TIMEOUT_MS = 300_000;

interface Running { child: ChildProcess; output: () => string; exited: Promise<number | null> }

/** Every process a test started: one left running (a failed test) would hold the data directory's lock for the next. */
const children = new Set<ChildProcess>();

function start(env: Record<string, string>, command: readonly string[] = [process.execPath, '--import', 'tsx', 'src/main.ts']): Running {
  const [program, ...args] = command;
  const child = spawn(program!, args, {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  children.add(child);
  void exited.then(() => children.delete(child));
  return { child, output: () => output, exited };
}

/** Waits for a line; ends early when the process exits. The deadline is the test's own limit, not a shorter one. */
async function waitFor(running: Running, text: string, timeoutMs = START_TEST_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!running.output().includes(text)) {
    if (Date.now() > deadline || running.child.exitCode !== null) throw new Error(`"${text}" not seen:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls new connections until one is refused; returns the error code. */
async function waitUntilRefused(port: number, timeoutMs = 5_000): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const code = await new Promise<string | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(undefined); });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    if (code !== undefined) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let dataDir: string;
beforeAll(async () => { dataDir = await mkdtemp(path.join(tmpdir(), 'fs-start-')); });
afterAll(() => rm(dataDir, { recursive: true, force: true }));
afterEach(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
});

// Each test starts real processes (through tsx): seconds on a quiet machine, a minute or more on a
// loaded 2-core one (a first start there took over 60 s). The limit keeps every test far from it.
// Most of these start on the embedded database whatever the run (DATA_DIR, no DATABASE_URL): once, in
// the PGlite run, is enough; the PostgreSQL run starts the server on PostgreSQL below.
const onEmbeddedDatabase = it.skipIf(TEST_DATABASE_URL);

describe('npm start', { timeout: START_TEST_TIMEOUT_MS }, () => {
  onEmbeddedDatabase('refuses a bad configuration with one clear line per value and a non-zero exit', async () => {
    const running = start({ PORT: 'abc', LOG_LEVEL: 'chatty', DATA_DIR: dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('PORT="abc" must be a whole number from 0 to 65535');
    expect(running.output()).toContain('LOG_LEVEL="chatty" must be one of');
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('refuses production without PostgreSQL and https', async () => {
    const running = start({ NODE_ENV: 'production', DATA_DIR: dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('NODE_ENV=production requires DATABASE_URL (PostgreSQL)');
    expect(running.output()).toContain('NODE_ENV=production requires an https PUBLIC_URL');
  });

  onEmbeddedDatabase('refuses a bad TRUST_PROXY or HOST before opening the database', async () => {
    const running = start({ TRUST_PROXY: 'yes', HOST: 'my host', DATA_DIR: dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain('TRUST_PROXY="yes" must be true, false or a comma-separated list of IP addresses or CIDR ranges');
    expect(running.output()).toContain('HOST="my host" must be an IP address or a host name');
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('refuses a signing key file that holds no key, with one line naming it, before opening the database or generating keys', async () => {
    const running = start({ OAUTH_PRIVATE_KEY_FILE: '/etc/hostname', DATA_DIR: dataDir });
    expect(await running.exited).toBe(1);
    expect(running.output()).toBe('Invalid configuration:\n'
      + '  - OAUTH_PRIVATE_KEY_FILE=/etc/hostname is not a PEM-encoded private key (PKCS#8 or PKCS#1, unencrypted)\n');
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'keys'))).toBe(false);
    const missing = start({ OAUTH_ENCRYPTION_KEY_FILE: path.join(dataDir, 'nope.key'), DATA_DIR: dataDir });
    expect(await missing.exited).toBe(1);
    expect(missing.output()).toContain(`OAUTH_ENCRYPTION_KEY_FILE=${path.join(dataDir, 'nope.key')} cannot be read: no such file`);
    expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
  });

  onEmbeddedDatabase('first start: creates and migrates the embedded database, generates keys (0600), loads the demo, serves, stops cleanly', async () => {
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    await waitFor(running, 'Demo dataset loaded');
    expect(running.output()).toContain(`ready at http://localhost:${port}`);
    expect(running.output()).toContain('orga@example.org');
    expect(running.output()).toContain('demo-password');

    for (const file of ['signing-key.pem', 'encryption.key']) {
      expect((await stat(path.join(dataDir, 'keys', file))).mode & 0o777).toBe(0o600);
    }
    const pem = await readFile(path.join(dataDir, 'keys', 'signing-key.pem'), 'utf8');
    expect(pem).toContain('BEGIN PRIVATE KEY');

    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    const login = await fetch(`http://127.0.0.1:${port}/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('name="password"');
    const api = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'orga@example.org', password: 'demo-password' }),
    });
    expect(api.status).toBe(200);
    expect(running.output()).not.toContain('demo-password"'); // the password never appears in a request log line

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(existsSync(path.join(dataDir, 'embedded-db.lock'))).toBe(false);

    // Second start: same keys, no second demo load.
    const again = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    await waitFor(again, 'ready at');
    expect(await readFile(path.join(dataDir, 'keys', 'signing-key.pem'), 'utf8')).toBe(pem);
    expect(again.output()).not.toContain('Demo dataset loaded');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  onEmbeddedDatabase('SIGTERM during the first start\'s demo load: the load completes or leaves nothing, the process exits 0, the next start is whole', async () => {
    const freshDir = await mkdtemp(path.join(tmpdir(), 'fs-start-sigterm-'));
    try {
      const port = await freePort();
      const first = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: freshDir });
      await waitFor(first, 'using key files'); // logged right before the demo dataset is loaded
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(first.output()).not.toContain('ready at');

      const second = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: freshDir });
      await waitFor(second, 'ready at');
      const login = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'koeln@example.org', password: 'demo-password' }),
      });
      expect(login.status).toBe(200);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      const handle = await openDatabase({ kind: 'pglite', dataDir: freshDir });
      try {
        const count = async (table: 'users' | 'regions' | 'stores' | 'oauth_clients') =>
          Number((await handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        expect({ users: await count('users'), regions: await count('regions'), stores: await count('stores'), clients: await count('oauth_clients') })
          .toEqual({ users: 6, regions: 5, stores: 2, clients: 2 });
      } finally {
        await handle.close();
      }
    } finally {
      await rm(freshDir, { recursive: true, force: true });
    }
  });

  onEmbeddedDatabase('SIGTERM: stops accepting connections, lets an in-flight request finish, then exits 0', async () => {
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
    await waitFor(running, 'ready at');
    const body = JSON.stringify({ email: 'nobody@example.org', password: 'not the password' });
    let inFlight: ClientRequest | undefined;
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/user/login',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => { text += chunk.toString(); });
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      });
      request.on('error', reject);
      request.write(body.slice(0, 10)); // the rest follows after SIGTERM
      inFlight = request;
    });
    await new Promise((r) => setTimeout(r, 300));

    running.child.kill('SIGTERM');
    await waitFor(running, 'shutting down');
    const refused = await waitUntilRefused(port);
    expect(refused).toBe('ECONNREFUSED');
    expect(running.child.exitCode).toBeNull(); // still finishing the request

    inFlight!.end(body.slice(10));
    const response = await answer;
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ status: 401, code: 'auth.invalid-credentials' });
    expect(await running.exited).toBe(0);
  });

  onEmbeddedDatabase('LOG_FORMAT=pretty: readable lines instead of JSON, the demo logins one per line', async () => {
    const ownDataDir = await mkdtemp(path.join(tmpdir(), 'fs-pretty-'));
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: ownDataDir, LOG_FORMAT: 'pretty' });
    try {
      await waitFor(running, 'OAuth client demo-spa');
      await fetch(`http://127.0.0.1:${port}/health`);
      await waitFor(running, 'request completed');
      const lines = running.output().split('\n');
      expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
      expect(lines.some((line) => /^\[\d\d:\d\d:\d\d\] INFO: Food-sharing server ready at /.test(line))).toBe(true);
      expect(lines).toContainEqual(expect.stringMatching(/^\s+orga@example\.org\s+demo-password\s+\(orga, role 4\)$/));
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      running.child.kill('SIGKILL');
      await rm(ownDataDir, { recursive: true, force: true });
    }
  });

  onEmbeddedDatabase('npm start: SIGTERM to npm stops the compiled server too, and npm exits once it has', async () => {
    const ownDataDir = await mkdtemp(path.join(tmpdir(), 'fs-npm-start-'));
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: ownDataDir }, ['npm', 'start']);
    let serverPid: number | undefined;
    try {
      await waitFor(running, 'ready at'); // prestart compiles first
      serverPid = Number(/"pid":(\d+)[^\n]*ready at/.exec(running.output())![1]);
      expect(serverPid).not.toBe(running.child.pid); // npm runs the server as its child
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      expect(running.output()).toContain('"signal":"SIGTERM","msg":"shutting down"');
      // npm waited for the server: it is gone, and so is its socket.
      expect(isAlive(serverPid)).toBe(false);
      expect(await waitUntilRefused(port, 100)).toBe('ECONNREFUSED');
    } finally {
      if (serverPid !== undefined && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
      await rm(ownDataDir, { recursive: true, force: true });
    }
  });

  it.runIf(TEST_DATABASE_URL)('in production: never loads the demo dataset, and warns about keys generated per instance', async () => {
    const schema = `test_start_prod_${Date.now()}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const keysDir = await mkdtemp(path.join(tmpdir(), 'fs-start-prod-'));
    try {
      const port = await freePort();
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const running = start({ NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', PORT: String(port), HOST: '127.0.0.1',
        DATA_DIR: keysDir, DATABASE_URL: url.toString() });
      await waitFor(running, 'ready at https://id.example.org');
      expect(running.output()).not.toContain('Demo dataset loaded');
      expect(running.output()).toMatch(/"level":40,.*NODE_ENV=production without OAUTH_PRIVATE_KEY\(_FILE\) and OAUTH_ENCRYPTION_KEY\(_FILE\)/);
      const { rows } = await admin.query(`select count(*)::int as n from ${schema}.users`);
      expect(rows[0].n).toBe(0);
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
      await rm(keysDir, { recursive: true, force: true });
    }
  });

  it.runIf(TEST_DATABASE_URL)('runs the same on an empty PostgreSQL database', async () => {
    const schema = `test_start_${Date.now()}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    try {
      const port = await freePort();
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: url.toString() });
      await waitFor(running, 'Demo dataset loaded');
      expect(running.output()).toContain('(PostgreSQL)');
      const response = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'foodsaver@example.org', password: 'demo-password' }),
      });
      expect(response.status).toBe(200);
      const { rows } = await admin.query(`select count(*)::int as n from ${schema}.users`);
      expect(rows[0].n).toBeGreaterThanOrEqual(5);
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  });
});
