/**
 * `LISTEN` on a connection of its own (src/db/notifications.ts): only the
 * notifications of this schema are delivered; a lost connection is replaced
 * and reported as listening again (so that missed changes are reloaded); a
 * database that refuses connections is retried, not thrown; closing stops it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { listenForNotifications, type NotificationHandlers } from '../../src/db/notifications.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';

const CHANNEL = 'oauth_signing_keys';

/** What a subscription reported, in order. */
function recorder(): NotificationHandlers & { notified: number; listens: number[]; errors: Error[]; retries: number[] } {
  const seen = { notified: 0, listens: [] as number[], errors: [] as Error[], retries: [] as number[] };
  return Object.assign(seen, {
    onNotify: () => { seen.notified += 1; },
    onListening: ({ backendPid }: { backendPid: number }) => { seen.listens.push(backendPid); },
    onError: (error: Error, retryInMs: number) => { seen.errors.push(error); seen.retries.push(retryInMs); },
  });
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PGlite', () => {
  it.skipIf(TEST_DATABASE_URL !== undefined)('has no listening connection (one process owns its data directory)', async () => {
    const database = await createTestDatabase();
    try {
      expect(database.handle.listen).toBeUndefined();
    } finally {
      await database.drop();
    }
  });
});

describe.skipIf(TEST_DATABASE_URL === undefined)('PostgreSQL LISTEN on a connection of its own', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = database.handle;
  });
  afterAll(async () => { await database.drop(); });

  const notify = (payload: string) => sql`select pg_notify(${CHANNEL}, ${payload})`.execute(handle.db);
  const isConnected = async (pid: number) =>
    (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${pid}`.execute(handle.db)).rows[0]!.n === 1;

  it('delivers this schema\'s notifications only, listens again after its connection is killed, and stops when closed', async () => {
    const seen = recorder();
    const subscription = handle.listen!(CHANNEL, seen);
    try {
      await until(() => seen.listens.length === 1);
      await notify(database.schema!);
      await notify('some_other_schema');
      await sql`update oauth_signing_keys set not_after = null where false`.execute(handle.db); // migration 048's trigger fires for any statement
      await until(() => seen.notified >= 2);

      await sql`select pg_terminate_backend(${seen.listens[0]!})`.execute(handle.db);
      await until(() => seen.listens.length === 2);
      // The first connection is gone and the second listened after all three: nothing more can arrive from them.
      expect(seen.notified).toBe(2);
      expect(seen.listens[1]).not.toBe(seen.listens[0]);
      expect(seen.errors.length).toBeGreaterThanOrEqual(1);
      await notify(database.schema!);
      await until(() => seen.notified >= 3);
    } finally {
      await subscription.close();
    }
    await until(async () => !await isConnected(seen.listens[1]!));
    expect(seen.listens).toHaveLength(2);
  });

  it('retries a database that refuses connections, with growing back-off, and never throws', async () => {
    const seen = recorder();
    const subscription = listenForNotifications({ url: 'postgres://postgres@127.0.0.1:1/none', connectTimeoutMs: 1000 }, CHANNEL, seen);
    try {
      await until(() => seen.retries.length >= 3);
      expect(seen.retries.slice(0, 3)).toEqual([250, 500, 1000]);
      expect(seen.listens).toEqual([]);
    } finally {
      await subscription.close();
    }
  });
});
