/**
 * Slow and greedy clients against a real listening server: a request whose
 * body or headers never complete (or a connection that sends nothing) is
 * answered 408 and closed within the configured time, headers by default
 * within 10 s; connections beyond MAX_CONNECTIONS are closed on accept;
 * a client that goes away mid-body is logged at info, never as an error.
 * Every wait is on a socket, server or log event. The tests run concurrently,
 * each on its own server: most of their time is spent waiting for its timers.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { freePort } from '../helpers/oauth.ts';

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

async function listening(env: Record<string, string>): Promise<{ t: TestApp; port: number }> {
  const t = await buildTestApp({ env });
  apps.push(t);
  const port = Number(new URL(await t.listen()).port);
  return { t, port };
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
}

/** Everything the server sends until it closes the connection, and how long that took. */
async function untilClosed(socket: Socket): Promise<{ received: string; ms: number }> {
  const started = Date.now();
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.on('error', () => {}); // a reset is a close too
  await once(socket, 'close');
  return { received, ms: Date.now() - started };
}

describe.concurrent('slow clients', () => {
  // The request line of a request whose headers never completed is not known to the server: plain JSON then.
  it.for<[string, string, string]>([
    ['a body that never completes', 'POST /api/user/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":', 'application/problem+json'],
    ['a body that never completes, outside /api', 'POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=', 'application/json'],
    ['headers that never complete', 'GET /api/petition HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n', 'application/json'],
    ['a connection that sends nothing', '', 'application/json'],
  ])('%s: answered 408 and closed within REQUEST_TIMEOUT_SECONDS', async ([, partial, type], { expect }) => {
    const { port } = await listening({ REQUEST_TIMEOUT_SECONDS: '1' });
    const socket = await open(port);
    socket.write(partial);
    const { received, ms } = await untilClosed(socket);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
    expect(received).toContain(`\r\nContent-Type: ${type}; charset=utf-8\r\n`);
    const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toMatchObject(type === 'application/problem+json'
      ? { status: 408, code: 'request.timeout', detail: 'The request took too long to arrive.' }
      : { statusCode: 408, error: 'Request Timeout', message: 'The request took too long to arrive.' });
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(15_000); // 1 s + Node's check interval (1 s); the default would be 30 s
  });

  it('by default, headers must arrive within 10 s, well before the 30 s of a whole request', async ({ expect }) => {
    const { port } = await listening({});
    const socket = await open(port);
    socket.write('GET /api/petition HTTP/1.1\r\nHost: x\r\n');
    const { received, ms } = await untilClosed(socket);
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(ms).toBeGreaterThanOrEqual(9_900);
    expect(ms).toBeLessThan(25_000);
  }, 60_000);
});

describe.concurrent('MAX_CONNECTIONS', () => {
  it('closes connections beyond the cap on accept, and accepts again once one is gone', async ({ expect }) => {
    const { t, port } = await listening({ MAX_CONNECTIONS: '2' });
    const accepted: Socket[] = [];
    t.app.server.on('connection', (socket: Socket) => accepted.push(socket));
    const held = [await open(port), await open(port)];
    while (accepted.length < 2) await once(t.app.server, 'connection');

    const refused = await open(port);
    const { received } = await untilClosed(refused);
    expect(received).toBe('');

    const serverSide = once(accepted[0]!, 'close');
    held[0]!.destroy();
    await serverSide;
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    expect(response.status).toBe(200);
    held[1]!.destroy();
  });
});

describe('logging of malformed requests', () => {
  it('at debug, the client error is logged without the request\'s bytes (cookies, Authorization, a password)', async ({ expect }) => {
    const lines: string[] = [];
    const logged = new Promise<void>((resolve) => {
      const t = buildTestApp({ env: { LOG_LEVEL: 'debug' }, logStream: { write: (line) => { lines.push(line); if (line.includes('"client error"')) resolve(); } } });
      void t.then(async (app) => {
        apps.push(app);
        const socket = await open(Number(new URL(await app.listen()).port));
        socket.on('error', () => {});
        const body = '{"email":"a@b.org","password":"RAWLEAK-PASSWORD-789"}';
        socket.write('POST /api/user/login HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer RAWLEAK-TOKEN-123\r\nCookie: fs_session=RAWLEAK-SESSION-456\r\n'
          + `Bad Header Line\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
    });
    await logged;
    const line = JSON.parse(lines.find((l) => l.includes('"client error"'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 20, code: 'HPE_INVALID_HEADER_TOKEN', requestId: expect.any(String) });
    const all = lines.join('\n');
    for (const secret of ['RAWLEAK', 'rawPacket', 'Buffer']) expect(all).not.toContain(secret);
  });
});

describe.concurrent('logging of clients that go away', () => {
  it('logs an aborted request body at info, with no error line', async ({ expect }) => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-limits-'));
    await copyMigratedDatabase(dataDir); // the server's start on an empty directory is main/start.test.ts's
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    const waiters: Array<{ test: (line: Record<string, unknown>) => boolean; resolve: () => void }> = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let line: Record<string, unknown>;
        try { line = JSON.parse(text) as Record<string, unknown>; } catch { continue; }
        lines.push(line);
        for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve();
      }
    });
    const logged = (test: (line: Record<string, unknown>) => boolean) =>
      lines.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve }));
    try {
      await Promise.race([logged((l) => String(l.msg).includes('ready at')), once(child, 'exit').then(() => { throw new Error('server exited'); })]);
      for (const [url, type] of [['/login', 'application/x-www-form-urlencoded'], ['/api/user/login', 'application/json']] as const) {
        const socket = await open(port);
        socket.on('error', () => {});
        socket.write(`POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: 1000\r\n\r\nemail=`);
        await logged((l) => l.msg === 'incoming request' && (l.req as { url?: string } | undefined)?.url === url);
        const reqId = lines.find((l) => l.msg === 'incoming request' && (l.req as { url?: string }).url === url)!.reqId;
        socket.destroy();
        // The request's last line: the abort noted, or (as it was) an error.
        await logged((l) => l.reqId === reqId && (l.msg === 'client aborted the request' || Number(l.level) >= 50));
      }
      expect(lines.filter((l) => l.msg === 'client aborted the request').map((l) => l.level)).toEqual([30, 30]);
      expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000); // a real start: keys, migrations and the demo dataset
});
