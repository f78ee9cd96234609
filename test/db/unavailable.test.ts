/** An unreachable or dropping PostgreSQL server is DATABASE_UNAVAILABLE by error code, never by message text. */
import { sql } from 'kysely';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { DATABASE_UNAVAILABLE, DatabaseUnavailableError } from '../../src/db/unavailable.ts';
import { classifyFailure, logFailure } from '../../src/http/failures.ts';
import { TEST_DATABASE_URL, withAdminClient } from '../helpers/database.ts';

describe('PostgreSQL outages are told by error code, not message text', () => {
  /** A TCP server on a free port; `onSocket` decides what happens to each connection. */
  async function tcpServer(onSocket: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
    const server = createServer(onSocket);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('a connection the server drops at once is DATABASE_UNAVAILABLE; system errors keep their code', async () => {
    const dropping = await tcpServer((socket) => socket.destroy());
    const handle = await openDatabase({ kind: 'postgres', url: `postgres://x@127.0.0.1:${dropping.port}/x`, poolSize: 1 });
    try {
      const error = await handle.ping().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE, message: expect.stringMatching(/^Connection terminated/) });
    } finally {
      await handle.close();
      await dropping.close();
    }
    const refused = await openDatabase({ kind: 'postgres', url: 'postgres://x@127.0.0.1:1/x', poolSize: 1 });
    try {
      expect(await refused.ping().catch((e: unknown) => e)).toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await refused.close();
    }
  });

  it('a server that answers a new connection with an error (55000: not accepting connections) is DATABASE_UNAVAILABLE: a 503, logged without a stack', async () => {
    // PostgreSQL's ErrorResponse to the startup message (protocol 3.0): severity, SQLSTATE, message.
    const fields = Buffer.from('SFATAL\0C55000\0Mdatabase "x" is not currently accepting connections\0\0');
    const header = Buffer.alloc(5);
    header.write('E');
    header.writeInt32BE(fields.length + 4, 1);
    const refusing = await tcpServer((socket) => socket.once('data', () => socket.end(Buffer.concat([header, fields]))));
    const handle = await openDatabase({ kind: 'postgres', url: `postgres://x@127.0.0.1:${refusing.port}/x`, poolSize: 1 });
    try {
      const error = await handle.ping().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE, message: 'database "x" is not currently accepting connections', cause: { code: '55000' } });
      const failure = classifyFailure(error);
      expect(failure).toMatchObject({ status: 503, isDatabaseDown: true });
      const lines: unknown[][] = [];
      const log = { warn: (...args: unknown[]) => lines.push(['warn', ...args]), error: (...args: unknown[]) => lines.push(['error', ...args]) };
      logFailure(log as unknown as Parameters<typeof logFailure>[0], error, failure);
      expect(lines).toEqual([['warn', { code: DATABASE_UNAVAILABLE, causeCode: '55000', reason: 'database "x" is not currently accepting connections' }, 'database unavailable']]);
      // Redis (the login counters' store when REDIS_URL is set) is named as such.
      lines.length = 0;
      const redisDown = new DatabaseUnavailableError(new Error('Command timed out'), 'redis');
      logFailure(log as unknown as Parameters<typeof logFailure>[0], redisDown, classifyFailure(redisDown));
      expect(lines).toEqual([['warn', { code: DATABASE_UNAVAILABLE, store: 'redis', reason: 'Command timed out' }, 'redis unavailable']]);
    } finally {
      await handle.close();
      await refusing.close();
    }
  });

  it('SQLSTATEs: an outage is a 503 logged at warn; a database out of disk or memory, or a transaction aborted for a deadlock or a serialization failure, a 503 logged as a fault; a protocol violation (ours) a 500', () => {
    expect(classifyFailure({ code: '57P01' })).toMatchObject({ status: 503, isDatabaseDown: true });
    expect(classifyFailure({ code: '25006' })).toMatchObject({ status: 503, isDatabaseDown: true });
    for (const code of ['53100', '53200', '40P01', '40001']) expect(classifyFailure({ code })).toEqual({ status: 503, message: 'The service is temporarily unavailable. Please try again shortly.', isServerFault: true });
    expect(classifyFailure({ code: '08P01' })).toMatchObject({ status: 500, isServerFault: true });
  });

  it.runIf(TEST_DATABASE_URL)('a database that does not accept connections (ALLOW_CONNECTIONS false) answers 503', async () => {
    const name = `unavailable_${process.pid}_${Date.now()}`;
    await withAdminClient((client) => client.query(`create database ${name} allow_connections false`));
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
    try {
      const error = await handle.ping().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE, cause: { code: '55000' } });
      expect(classifyFailure(error).status).toBe(503);
    } finally {
      await handle.close();
      await withAdminClient((client) => client.query(`drop database ${name}`));
    }
  });

  it.runIf(TEST_DATABASE_URL)('a connection lost during a query is DATABASE_UNAVAILABLE; a query error keeps its SQLSTATE', async () => {
    const target = new URL(TEST_DATABASE_URL!);
    const sockets: Socket[] = [];
    const proxy = await tcpServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      sockets.push(client, upstream);
      client.pipe(upstream).pipe(client);
      client.on('error', () => {});
      upstream.on('error', () => {});
    });
    const url = new URL(TEST_DATABASE_URL!);
    url.host = `127.0.0.1:${proxy.port}`;
    const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
    try {
      expect(await sql`select 1/0`.execute(handle.db).catch((e: unknown) => e)).toMatchObject({ code: '22012' });
      const slow = sql`select pg_sleep(5)`.execute(handle.db).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      for (const socket of sockets) socket.destroy();
      const error = await slow;
      expect(error).toBeInstanceOf(DatabaseUnavailableError);
      expect(error).toMatchObject({ code: DATABASE_UNAVAILABLE });
    } finally {
      await handle.close();
      await proxy.close();
    }
  });
});
