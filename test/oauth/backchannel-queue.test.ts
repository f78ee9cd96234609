/**
 * The logout-notice queue is durable and shared (Back-Channel Logout 1.0,
 * SPEC §3 "several instances behave as one"): a notice queued by one server
 * is sent by the next one started on the same database (the database itself
 * closed and opened again in between); a notice whose sender died is sent
 * once its lease ends; closing an app waits for the attempt under way; two
 * instances on one database never send one notice twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle, type DB } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { NOTICE_LEASE_SECONDS } from '../../src/oauth/backchannel/logout-notices.ts';
import { claimDueNotices, enqueueLogoutNotices, recordNoticeOutcome } from '../../src/oauth/backchannel/logout-notices.repository.ts';
import { testConfig, testKeys } from '../helpers/app.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { createTestDatabase, TEST_DATABASE_URL } from '../helpers/database.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { LogoutReceiver, verifyLogoutToken } from '../helpers/logout-receiver.ts';
import { freePort } from '../helpers/oauth.ts';

/** One database that can be opened again: a PGlite data directory, or a schema on the test PostgreSQL. */
interface ReopenableDatabase { open(): Promise<DatabaseHandle>; drop(): Promise<void> }

async function reopenableDatabase(): Promise<ReopenableDatabase> {
  if (TEST_DATABASE_URL !== undefined) {
    const url = TEST_DATABASE_URL;
    const created = await createTestDatabase();
    return { open: () => openDatabase({ kind: 'postgres', url, schema: created.schema!, poolSize: 3 }), drop: () => created.drop() };
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-backchannel-'));
  await copyMigratedDatabase(dataDir);
  return { open: () => openDatabase({ kind: 'pglite', dataDir }), drop: () => rm(dataDir, { recursive: true, force: true }) };
}

const clock = new FrozenClock(new Date());
let database: ReopenableDatabase;
let config: Config;
let removeDataDir: () => Promise<void>;
let issuerPort: number;
let receiver: LogoutReceiver;
beforeAll(async () => {
  database = await reopenableDatabase();
  issuerPort = await freePort();
  ({ config, removeDataDir } = await testConfig({ PUBLIC_URL: `http://127.0.0.1:${issuerPort}` }));
  const first = await database.open();
  await migrate(first.db);
  await first.close();
  receiver = await new LogoutReceiver().listen();
});
afterAll(async () => {
  await receiver.close();
  await database.drop();
  await removeDataDir();
});

interface Instance { app: FastifyInstance; db: DB; handle: DatabaseHandle; stop(): Promise<void> }

/**
 * A server on its own connection to the database, or on `shared`'s (PGlite: one process owns the data
 * directory, as with the embedded database in production); `listen` serves the issuer's JWKS to the receiver.
 */
async function startInstance(options: { listen?: boolean; shared?: Instance } = {}): Promise<Instance> {
  const handle = options.shared?.handle ?? await database.open();
  const app = await buildApp(config, { database: handle, keys: await testKeys(), clock: clock.now });
  if (options.listen) await app.listen({ port: issuerPort, host: '127.0.0.1' });
  else await app.ready();
  return { app, db: handle.db, handle, stop: async () => { await app.close(); if (!options.shared) await handle.close(); } };
}

/** Claim limits that let one client have every notice. */
const anyClient = (total: number) => ({ total, perClient: total, skipClients: [], lastClients: [] });

async function queue(db: DB, sids: string[]): Promise<void> {
  await enqueueLogoutNotices(db, sids.map((sid) => ({ clientId: 'wiki', backchannelLogoutUri: receiver.url, sub: '7', sid })), clock.now());
}

async function sidsReceived(since: number): Promise<unknown[]> {
  return Promise.all(receiver.received.slice(since).map(async (r) => (await verifyLogoutToken(r.logoutToken, config.publicUrl, 'wiki', clock.now())).sid));
}

describe('a restart', () => {
  it('loses no notice: queued by one server, closed before sending, sent by the next server on the reopened database', async () => {
    const first = await startInstance();
    await queue(first.db, ['restart-1']);
    await first.stop();
    expect(receiver.received.length).toBe(0);

    const second = await startInstance({ listen: true });
    try {
      expect(await second.app.logoutNotices.runOnce()).toBe(1);
      expect(await sidsReceived(0)).toStrictEqual(['restart-1']);
      expect(await second.db.selectFrom('oauth_logout_notices').select(['state', 'attempts']).where('sid', '=', 'restart-1').executeTakeFirst())
        .toStrictEqual({ state: 'sent', attempts: 1 });
    } finally {
      await second.stop();
    }
  });

  it('a notice claimed by a server that died is sent again once its lease has ended, not before', async () => {
    const dead = await startInstance();
    await queue(dead.db, ['orphan-1']);
    expect(await claimDueNotices(dead.db, clock.now(), new Date(clock.now().getTime() + NOTICE_LEASE_SECONDS * 1000), anyClient(10))).toHaveLength(1);
    await dead.stop(); // died before recording anything

    const next = await startInstance({ listen: true });
    try {
      const before = receiver.received.length;
      expect(await next.app.logoutNotices.runOnce()).toBe(0);
      clock.advance(NOTICE_LEASE_SECONDS);
      expect(await next.app.logoutNotices.runOnce()).toBe(1);
      expect(await sidsReceived(before)).toStrictEqual(['orphan-1']);
      expect(await next.db.selectFrom('oauth_logout_notices').select(['state', 'attempts']).where('sid', '=', 'orphan-1').executeTakeFirst())
        .toStrictEqual({ state: 'sent', attempts: 2 });
    } finally {
      await next.stop();
    }
  });

  it('a started server polls the queue by itself; stopping it ends the polling', async () => {
    const server = await startInstance({ listen: true });
    try {
      const before = receiver.received.length;
      server.app.logoutNotices.start(20);
      await queue(server.db, ['polled-1']);
      await receiver.waitForRequests(before + 1);
      expect(await sidsReceived(before)).toStrictEqual(['polled-1']);
      await server.app.logoutNotices.stop();
      await queue(server.db, ['after-stop']);
      expect(await server.app.logoutNotices.runOnce()).toBe(1); // nothing else had claimed it
    } finally {
      await server.stop();
    }
  });

  it('closing the app waits for the attempt under way and records it', async () => {
    const server = await startInstance({ listen: true });
    await queue(server.db, ['closing-1']);
    const before = receiver.received.length;
    receiver.answers.push('hang');
    const run = server.app.logoutNotices.runOnce();
    await receiver.waitForRequests(before + 1);
    let closed = false;
    const closing = server.app.close().then(() => { closed = true; });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    receiver.release(200);
    await closing;
    expect(await run).toBe(1);
    expect(await server.db.selectFrom('oauth_logout_notices').select('state').where('sid', '=', 'closing-1').executeTakeFirst())
      .toStrictEqual({ state: 'sent' });
    await server.stop();
  });
});

describe('two instances on one database', () => {
  it('claim disjoint notices, and a stale claim cannot record an outcome', async () => {
    const a = await database.open();
    const b = TEST_DATABASE_URL === undefined ? undefined : await database.open();
    const other = b ?? a; // PGlite: one process owns the data directory; both claims then share it
    try {
      await queue(a.db, Array.from({ length: 30 }, (_, i) => `claim-${i}`));
      const lease = new Date(clock.now().getTime() + NOTICE_LEASE_SECONDS * 1000);
      const [mine, theirs] = await Promise.all([claimDueNotices(a.db, clock.now(), lease, anyClient(30)), claimDueNotices(other.db, clock.now(), lease, anyClient(30))]);
      const ids = [...mine, ...theirs].map((n) => n.id);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);

      const stale = (mine[0] ?? theirs[0])!;
      clock.advance(NOTICE_LEASE_SECONDS);
      const [reclaimed] = await claimDueNotices(a.db, clock.now(), new Date(clock.now().getTime() + NOTICE_LEASE_SECONDS * 1000), anyClient(1));
      expect(reclaimed).toMatchObject({ id: stale.id, attempts: 2 });
      expect(await recordNoticeOutcome(a.db, stale, { state: 'sent' }, clock.now())).toBe(false);
      expect(await recordNoticeOutcome(a.db, reclaimed!, { state: 'sent' }, clock.now())).toBe(true);
      await a.db.updateTable('oauth_logout_notices').set({ state: 'abandoned', finished_at: clock.now() }).where('state', '=', 'pending').execute();
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it('never send one notice twice', async () => {
    const one = await startInstance({ listen: true });
    const two = await startInstance(TEST_DATABASE_URL === undefined ? { shared: one } : {});
    try {
      const sids = Array.from({ length: 45 }, (_, i) => `pair-${i}`);
      await queue(one.db, sids);
      const before = receiver.received.length;
      let claimed = 0;
      for (;;) {
        const counts = await Promise.all([one.app.logoutNotices.runOnce(), two.app.logoutNotices.runOnce()]);
        if (counts[0] === 0 && counts[1] === 0) break;
        claimed += counts[0] + counts[1];
      }
      expect(claimed).toBe(45);
      const received = await sidsReceived(before);
      expect(received).toHaveLength(45);
      expect(new Set(received)).toStrictEqual(new Set(sids));
    } finally {
      await two.stop();
      await one.stop();
    }
  });
});
