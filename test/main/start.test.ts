/**
 * `npm start` on the embedded database: the first start, SIGTERM (also during the demo load and through npm), readable logs.
 * Only the first test starts on an empty directory (initdb and every migration, seconds of CPU); the others start on a
 * copy of the run's migrated database (helpers/migrated-data-dir.ts): keys are generated and the demo loaded there too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { freePort } from '../helpers/oauth.ts';
import { isAlive, start, START_TEST_TIMEOUT_MS, useStartDataDir, waitFor, waitUntilRefused } from './start-process.ts';

const work = useStartDataDir();

// These start on the embedded database whatever the run (DATA_DIR, no DATABASE_URL): once, in the
// PGlite run, is enough; the PostgreSQL run starts the server on PostgreSQL (start-postgres.test.ts).
const onEmbeddedDatabase = it.skipIf(TEST_DATABASE_URL);

describe('npm start', { timeout: START_TEST_TIMEOUT_MS }, () => {
  onEmbeddedDatabase('first start: creates and migrates the embedded database, generates keys (0600), loads the demo, serves, stops cleanly', async () => {
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work.dataDir });
    await waitFor(running, 'Demo dataset loaded');
    expect(running.output()).toContain(`ready at http://localhost:${port}`);
    expect(running.output()).toContain('orga@example.org');
    expect(running.output()).toContain('demo-password');

    for (const file of ['signing-key.pem', 'encryption.key']) {
      expect((await stat(path.join(work.dataDir, 'keys', file))).mode & 0o777).toBe(0o600);
    }
    const pem = await readFile(path.join(work.dataDir, 'keys', 'signing-key.pem'), 'utf8');
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
    expect(existsSync(path.join(work.dataDir, 'embedded-db.lock'))).toBe(false);

    // Second start: same keys, no second demo load.
    const again = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work.dataDir });
    await waitFor(again, 'ready at');
    expect(await readFile(path.join(work.dataDir, 'keys', 'signing-key.pem'), 'utf8')).toBe(pem);
    expect(again.output()).not.toContain('Demo dataset loaded');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  // The signal is sent as the demo dataset starts loading; whether it is handled during the load
  // (then the start stops before listening) or after it (the load takes a few hundred milliseconds,
  // the test's reaction on a busy machine as long) depends on the scheduler, so both are accepted:
  // the process exits 0, and the next start finds the dataset whole either way.
  onEmbeddedDatabase('SIGTERM as the first start loads the demo dataset: the process exits 0, the load completes or leaves nothing, the next start is whole', async () => {
    const freshDir = await mkdtemp(path.join(tmpdir(), 'fs-start-sigterm-'));
    try {
      await copyMigratedDatabase(freshDir);
      const port = await freePort();
      const first = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: freshDir });
      await waitFor(first, 'using key files'); // logged right before the demo dataset is loaded
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      // Stopped during the load: it neither listened nor announced the dataset.
      if (!first.output().includes('ready at')) expect(first.output()).not.toContain('Demo dataset loaded');

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
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work.dataDir });
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
    // In flight: the server logs a request when its headers are read, before its body.
    await waitFor(running, '"method":"POST","url":"/api/user/login"');

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
    await copyMigratedDatabase(ownDataDir);
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
    await copyMigratedDatabase(ownDataDir);
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

  onEmbeddedDatabase('npm run dev: SIGTERM to npm stops the watcher and the server it runs, and npm exits once they have', async () => {
    const ownDataDir = await mkdtemp(path.join(tmpdir(), 'fs-npm-dev-'));
    await copyMigratedDatabase(ownDataDir);
    const port = await freePort();
    const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: ownDataDir }, ['npm', 'run', 'dev']);
    const pids: number[] = [];
    try {
      await waitFor(running, 'ready at');
      const serverPid = Number(/"pid":(\d+)[^\n]*ready at/.exec(running.output())![1]);
      const watcherPid = parentOf(serverPid);
      pids.push(serverPid, watcherPid);
      expect(watcherPid).not.toBe(running.child.pid);
      expect(parentOf(watcherPid)).toBe(running.child.pid); // npm runs the watcher itself, no shell between them
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      expect(running.output()).toContain('"signal":"SIGTERM","msg":"shutting down"');
      expect(isAlive(serverPid)).toBe(false);
      expect(isAlive(watcherPid)).toBe(false);
    } finally {
      for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      await rm(ownDataDir, { recursive: true, force: true });
    }
  });

});

/** The parent process id, from /proc/<pid>/stat (the field after the command's closing parenthesis and the state). */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
