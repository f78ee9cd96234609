/** An unreachable or dropping PostgreSQL server is DATABASE_UNAVAILABLE by error code, never by message text. */
import { sql } from 'kysely';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { DATABASE_UNAVAILABLE, DatabaseUnavailableError } from '../../src/db/unavailable.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';

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
