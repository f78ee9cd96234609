/**
 * One client cannot take every connection: sockets beyond
 * MAX_CONNECTIONS_PER_ADDRESS from one source address are closed on accept,
 * without holding a slot of the global MAX_CONNECTIONS, so other addresses
 * keep being served; behind TRUST_PROXY the socket's address counts, never
 * X-Forwarded-For. Real listening servers and real sockets: on Linux every
 * 127.0.0.0/8 address is a distinct loopback source. Every wait is on a
 * socket or server event.
 */
import http from 'node:http';
import { connect, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

const ATTACKER = '127.0.0.1';
const OTHER = '127.0.0.2';
const SLOW_HEADERS = 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n';

const apps: TestApp[] = [];
const sockets: Socket[] = [];
const connected = new WeakSet<Socket>();
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
afterAll(async () => {
  for (const app of apps) await app.close();
});

/** A listening app, its log lines, and the sockets its server was handed (refused ones already destroyed). */
async function listening(env: Record<string, string>) {
  const lines: string[] = [];
  const t = await buildTestApp({ env: { LOG_LEVEL: 'info', ...env }, logStream: { write: (line) => { lines.push(line); } } });
  apps.push(t);
  const port = Number(new URL(await t.listen()).port);
  const server = t.app.server as Server;
  const seen = { accepted: new Map<string, number>(), handled: 0, sockets: [] as Socket[] };
  let waiter: { count: number; resolve: () => void } | undefined;
  const note = () => {
    seen.handled += 1;
    if (waiter && seen.handled >= waiter.count) waiter.resolve();
  };
  server.on('connection', (socket: Socket) => {
    if (!socket.destroyed) {
      seen.accepted.set(socket.remoteAddress!, (seen.accepted.get(socket.remoteAddress!) ?? 0) + 1);
      seen.sockets.push(socket);
    }
    note();
  });
  server.on('drop', note); // refused by MAX_CONNECTIONS before any 'connection'
  /** Resolves once the server has handled (accepted or refused) `count` sockets in all. */
  const handled = (count: number) => seen.handled >= count
    ? Promise.resolve()
    : new Promise<void>((resolve) => { waiter = { count, resolve }; });
  const events = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event !== undefined);
  return { t, port, seen, handled, events };
}

/** Resolves with the first of `events` that `emitter` emits (events.once would reject on an 'error' first). */
function first(emitter: Socket | Server, events: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    for (const event of events) emitter.once(event, () => resolve(event));
  });
}

/** A raw socket from `localAddress`, once connected (the server may not have accepted it yet) or failed. */
async function open(port: number, localAddress: string): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.push(socket);
  socket.on('error', () => {}); // a refused socket is reset: that is a close too
  if (await first(socket, ['connect', 'close']) === 'connect') connected.add(socket);
  return socket;
}

/** Everything the server sends on `socket` until the connection closes. */
async function untilClosed(socket: Socket): Promise<string> {
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  if (!socket.destroyed) await first(socket, ['close']);
  return received;
}

/** The first bytes the server answers on `socket`, or '' when the connection closes without a word. */
function firstAnswer(socket: Socket): Promise<string> {
  if (socket.destroyed) return Promise.resolve('');
  return new Promise((resolve) => {
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1')));
    socket.once('close', () => resolve(''));
  });
}

/** GET over a new connection from `localAddress`: the status, or 0 when the connection failed. */
function getFrom(port: number, localAddress: string, path = '/health'): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path, localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(0));
    });
    request.on('error', () => resolve(0));
  });
}

describe('one address cannot take every connection', () => {
  it('with 1,100 slow sockets held from one address, another address is still served (≥ 95 %)', async () => {
    const { port, seen, handled } = await listening({});
    // In batches, so that the listen backlog never overflows (a dropped SYN is retried only after a second).
    const attackers: Socket[] = [];
    for (let batch = 0; batch < 11; batch += 1) {
      const opened = await Promise.all(Array.from({ length: 100 }, () => open(port, ATTACKER)));
      for (const socket of opened) if (!socket.destroyed) socket.write(SLOW_HEADERS);
      attackers.push(...opened);
    }
    expect(attackers.filter((socket) => connected.has(socket))).toHaveLength(1100);
    await handled(1100);

    const statuses: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      statuses.push(...await Promise.all(Array.from({ length: 10 }, () => getFrom(port, OTHER))));
    }
    const served = statuses.filter((status) => status === 200).length;
    expect(served).toBeGreaterThanOrEqual(95);
    expect(seen.accepted.get(ATTACKER)).toBe(64); // the default MAX_CONNECTIONS_PER_ADDRESS
  }, 120_000);

  it('is configurable, and a refused socket holds no slot of MAX_CONNECTIONS', async () => {
    const { port, seen, handled, events } = await listening({ MAX_CONNECTIONS: '3', MAX_CONNECTIONS_PER_ADDRESS: '2' });
    const held = [await open(port, ATTACKER), await open(port, ATTACKER)];
    await handled(2);
    for (const socket of held) socket.write(SLOW_HEADERS);

    const refused = [];
    for (let i = 0; i < 5; i += 1) refused.push(await open(port, ATTACKER));
    expect(await Promise.all(refused.map(untilClosed))).toEqual(['', '', '', '', '']);
    await handled(7);
    expect(seen.accepted.get(ATTACKER)).toBe(2);
    // One warning for the five (at most one a minute), naming the address and the limit.
    expect(events()).toEqual([expect.objectContaining({
      level: 40, event: 'http.connections.refused', address: ATTACKER, refused: 1, limit: 2,
      msg: 'connections refused: too many from one address',
    })]);

    // The third global slot is still free for another address.
    expect(await getFrom(port, OTHER)).toBe(200);
    expect(held.map((socket) => socket.destroyed)).toEqual([false, false]);

    // A slot of the address freed is a slot it may take again.
    const serverSide = seen.sockets.find((socket) => socket.remotePort === held[0]!.localPort)!;
    const serverClosed = first(serverSide, ['close']);
    held[0]!.destroy();
    await serverClosed;
    expect(await getFrom(port, ATTACKER)).toBe(200);
  }, 60_000);

  it('behind TRUST_PROXY, the socket address counts: X-Forwarded-For changes nothing', async () => {
    const { port, seen, handled } = await listening({ TRUST_PROXY: 'true', MAX_CONNECTIONS_PER_ADDRESS: '3' });
    const answers: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      const socket = await open(port, ATTACKER);
      await handled(i);
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.${i}\r\n\r\n`);
      answers.push(await firstAnswer(socket));
    }
    expect(answers.map((answer) => answer.split('\r\n', 1)[0])).toEqual([
      'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', '', '',
    ]);
    expect(seen.accepted.get(ATTACKER)).toBe(3);
    expect(await getFrom(port, OTHER)).toBe(200);
  }, 60_000);

  it('the reverse proxies a TRUST_PROXY list names are not limited per address; everyone else is', async () => {
    const { port, seen, handled } = await listening({ TRUST_PROXY: `${ATTACKER},10.0.0.0/8`, MAX_CONNECTIONS_PER_ADDRESS: '2' });
    const proxy: Socket[] = [];
    for (let i = 1; i <= 4; i += 1) {
      proxy.push(await open(port, ATTACKER));
      await handled(i);
    }
    for (const socket of proxy) socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const answers = await Promise.all(proxy.map(firstAnswer));
    expect(answers.map((answer) => answer.split('\r\n', 1)[0])).toEqual(Array.from({ length: 4 }, () => 'HTTP/1.1 200 OK'));
    const others: Socket[] = [];
    for (let i = 1; i <= 3; i += 1) {
      others.push(await open(port, OTHER));
      await handled(4 + i);
    }
    expect(seen.accepted.get(OTHER)).toBe(2);
    for (const socket of others) if (!socket.destroyed) socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    const otherAnswers = await Promise.all(others.map(firstAnswer));
    expect(otherAnswers.map((answer) => answer.split('\r\n', 1)[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', '']);
  }, 60_000);
});
