/**
 * A PostgreSQL that does not let the server or CLI in is named by
 * DATABASE_URL and the address tried, with the reason, never the password.
 */
import { createServer, type AddressInfo } from 'node:net';
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
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      expect((await refusalOf(`postgres://fs:pw@127.0.0.1:${port}/x`, { DATABASE_TIMEOUT_SECONDS: '1' }) as Error).message)
        .toBe(`cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): no answer within 1 s (DATABASE_TIMEOUT_SECONDS)`);
    } finally {
      silent.close();
    }
    // One that lets us in (AuthenticationOk, ReadyForQuery: a pooler whose database is down) and never answers the query.
    const pooler = createServer((socket) => socket.once('data', () => {
      const ok = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([ok, ready]));
    }));
    await new Promise<void>((resolve) => pooler.listen(0, '127.0.0.1', resolve));
    try {
      const port = (pooler.address() as AddressInfo).port;
      expect((await refusalOf(`postgres://fs:pw@127.0.0.1:${port}/x`, { DATABASE_TIMEOUT_SECONDS: '1' }) as Error).message)
        .toBe(`cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): no answer within 1 s (DATABASE_TIMEOUT_SECONDS)`);
    } finally {
      pooler.close();
    }
    // One that accepts and closes at once (a server or pooler restarting): not a timeout.
    const closing = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    try {
      const port = (closing.address() as AddressInfo).port;
      expect((await refusalOf(`postgres://fs:pw@127.0.0.1:${port}/x`) as Error).message)
        .toBe(`cannot connect to the database at 127.0.0.1:${port} (DATABASE_URL): the address answered, then closed the connection`);
    } finally {
      closing.close();
    }
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
