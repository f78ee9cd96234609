/**
 * A PostgreSQL that does not let the server or CLI in is named by
 * DATABASE_URL and the address tried, with the reason, never the password.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { addressOf, DatabaseConnectError, openConfiguredDatabase } from '../../src/db/target.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { freePort } from '../helpers/oauth.ts';

const refusalOf = (databaseUrl: string, env: Record<string, string> = {}) =>
  openConfiguredDatabase(loadConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, ...env })).then(
    async (handle) => { await handle.close(); return undefined; },
    (error: unknown) => error,
  );

/** `work` with a TCP server on a free loopback port whose connections `onSocket` answers; closed afterwards. */
async function withServer<T>(onSocket: (socket: Socket) => void, work: (port: number) => Promise<T>): Promise<T> {
  const server = createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await work((server.address() as AddressInfo).port);
  } finally {
    server.close();
  }
}

describe('a database that cannot be reached', () => {
  it('refused: names DATABASE_URL, host and port, not the password', async () => {
    const port = await freePort();
    const error = await refusalOf(`postgres://fs:s3cret-pw@127.0.0.1:${port}/foodsharing`);
    expect(error).toBeInstanceOf(DatabaseConnectError);
    expect((error as Error).message).toBe(`cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): connection refused`);
  });

  it('a host that does not resolve, one that accepts but never answers, and one that closes at once', async () => {
    // ENOTFOUND, or EAI_AGAIN where no DNS server answers: "host not found" either way.
    expect((await refusalOf('postgres://fs:pw@no-such-host.invalid:5433/x') as Error).message)
      .toMatch(/^cannot connect to the database at no-such-host\.invalid:5433 \(DATABASE_URL\): host not found/);
    const reasonAt = (onSocket: (socket: Socket) => void, env: Record<string, string> = {}) =>
      withServer(onSocket, async (port) => ({ port, message: (await refusalOf(`postgres://fs:pw@127.0.0.1:${port}/x`, env) as Error).message }));
    const silent = await reasonAt(() => {}, { DATABASE_TIMEOUT_SECONDS: '1' });
    expect(silent.message).toBe(`cannot connect to the database at 127.0.0.1:${silent.port} (DATABASE_URL): no answer within 1 s (DATABASE_TIMEOUT_SECONDS)`);
    // One that lets us in (AuthenticationOk, ReadyForQuery: a pooler whose database is down) and never answers the query.
    const pooler = await reasonAt((socket) => socket.once('data', () => {
      socket.write(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]));
    }), { DATABASE_TIMEOUT_SECONDS: '1' });
    expect(pooler.message).toBe(`cannot connect to the database at 127.0.0.1:${pooler.port} (DATABASE_URL): no answer within 1 s (DATABASE_TIMEOUT_SECONDS)`);
    // One that accepts and closes at once (a server or pooler restarting): not a timeout.
    const closing = await reasonAt((socket) => socket.destroy());
    expect(closing.message).toBe(`cannot connect to the database at 127.0.0.1:${closing.port} (DATABASE_URL): the address answered, then closed the connection`);
  });

  it.runIf(TEST_DATABASE_URL)('a database that answers with a refusal: in its own words', async () => {
    const url = new URL(TEST_DATABASE_URL!);
    url.pathname = '/no_such_database_here';
    const error = await refusalOf(url.toString());
    expect((error as Error).message).toBe(`cannot connect to the database at ${addressOf(url.toString())} (DATABASE_URL): `
      + 'database "no_such_database_here" does not exist');
  });

  it('the address is the one pg tries: the default port, a socket directory, an IPv6 literal', () => {
    expect(addressOf('postgres://u:p@db.internal/x')).toBe('db.internal:5432');
    expect(addressOf('postgres:///x?host=/run/postgresql')).toBe('/run/postgresql:5432');
    expect(addressOf('postgresql://u@[::1]:6543/x')).toBe('[::1]:6543');
  });
});
