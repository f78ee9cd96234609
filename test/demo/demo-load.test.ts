/**
 * Loading the demo dataset: never in production, once when instances start
 * together, and all or nothing (SPEC §3, §9).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DatabaseNotEmptyError, DEMO_PASSWORD, loadDemoData, loadDemoDataIfEmpty } from '../../src/demo/demo-data.ts';
import { InvalidClientInput } from '../../src/oauth/clients/client-errors.ts';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { loadDemoOnFirstStart } from '../../src/startup.ts';
import { buildTestApp, testConfig, testKeys } from '../helpers/app.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';
import { logInAs } from '../helpers/session.ts';

const TABLES = ['users', 'regions', 'region_memberships', 'stores', 'store_pickup_slots', 'quizzes', 'baskets', 'basket_requests',
  'polls', 'contents', 'feature_toggles', 'reports', 'oauth_clients'] as const;

async function countRows(db: DB): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(db);
    counts[table] = rows[0]!.n;
  }
  return counts;
}

const EMPTY = Object.fromEntries(TABLES.map((t) => [t, 0]));

let databases: TestDatabase[] = [];
async function freshDatabase(): Promise<DB> {
  const database = await createTestDatabase();
  databases.push(database);
  return database.handle.db;
}
afterEach(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  databases = [];
});

describe('demo dataset on start-up', () => {
  it('is never loaded in production: the database stays empty', async () => {
    const db = await freshDatabase();
    const production = await testConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://unused/x', PUBLIC_URL: 'https://id.example.org', MAIL: 'off' });
    try {
      expect(await loadDemoOnFirstStart(production.config, db, await testKeys())).toBeUndefined();
      expect(await countRows(db)).toEqual(EMPTY);
    } finally {
      await production.removeDataDir();
    }
  });

  it('is loaded into an empty database outside production, and not a second time', async () => {
    const db = await freshDatabase();
    const development = await testConfig({ NODE_ENV: 'development' });
    try {
      const summary = await loadDemoOnFirstStart(development.config, db, await testKeys());
      expect(summary?.users).toHaveLength(6);
      const counts = await countRows(db);
      expect(counts).toMatchObject({ users: 6, regions: 5, stores: 2, polls: 2, baskets: 2, oauth_clients: 2 });
      expect(await loadDemoOnFirstStart(development.config, db, await testKeys())).toBeUndefined();
      expect(await countRows(db)).toEqual(counts);
    } finally {
      await development.removeDataDir();
    }
  });
});

describe('demo dataset loading', () => {
  it('loads exactly once when two loaders run at the same time on one database', async () => {
    const db = await freshDatabase();
    const keys = await testKeys();
    const results = await Promise.all([loadDemoDataIfEmpty(db, keys), loadDemoDataIfEmpty(db, keys)]);
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    expect(await countRows(db)).toMatchObject({ users: 6, regions: 5, stores: 2, oauth_clients: 2 });
    await expect(loadDemoData(db, keys)).rejects.toBeInstanceOf(DatabaseNotEmptyError);
  });

  it.runIf(TEST_DATABASE_URL)('loads exactly once when two instances (two connection pools) load into one PostgreSQL database', async () => {
    const schema = `test_demo_${randomBytes(6).toString('hex')}`;
    const admin = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, poolSize: 1 });
    await sql.raw(`create schema ${schema}`).execute(admin.db);
    const a = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 2 });
    const b = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 2 });
    try {
      await migrate(a.db);
      const keys = await testKeys();
      const results = await Promise.all([loadDemoDataIfEmpty(a.db, keys), loadDemoDataIfEmpty(b.db, keys)]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      expect(await countRows(a.db)).toMatchObject({ users: 6, regions: 5, stores: 2, polls: 2, oauth_clients: 2 });
    } finally {
      await a.close();
      await b.close();
      await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
      await admin.close();
    }
  });

  it('leaves the database as it was when a step fails midway (here: the demo client id is taken)', async () => {
    const db = await freshDatabase();
    const keys = await testKeys();
    await createClient(db, keys, { clientId: 'demo-app', name: 'Taken', confidential: false, redirectUris: ['http://127.0.0.1:9/cb'],
      scopes: [], grantTypes: [], requiredRegions: [] });
    const error = await loadDemoData(db, keys).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidClientInput);
    expect((error as InvalidClientInput).errors).toEqual([{ field: 'clientId', message: 'is already taken by another client' }]);
    expect(await countRows(db)).toEqual({ ...EMPTY, oauth_clients: 1 });

    // Nothing half-loaded blocks a later attempt.
    await db.deleteFrom('oauth_clients').execute();
    expect((await loadDemoData(db, keys)).users).toHaveLength(6);
  });
});

describe('demo dataset over time', () => {
  it('stays usable for weeks: 20 days on, README\'s basket still answers, the future poll has not started, free pickups lie ahead', async () => {
    const t = await buildTestApp();
    try {
      const demo = await loadDemoData(t.db, t.keys);
      t.clock.advance(20 * 86_400);
      const bread = demo.sharing.baskets[0]!;
      const frieda = await logInAs(t.app, { email: bread.creator.email, password: DEMO_PASSWORD });
      const patch = await t.app.inject({ method: 'PATCH', url: `/api/baskets/${bread.id}`, headers: frieda.headers,
        payload: { description: 'Zwei Laibe Sauerteigbrot, noch heute abzuholen.' } });
      expect(patch.statusCode, patch.body).toBe(200);

      const notStarted = demo.sharing.polls.find((p) => !p.hasStarted)!;
      const author = await logInAs(t.app, { email: notStarted.author.email, password: DEMO_PASSWORD });
      const edit = await t.app.inject({ method: 'PATCH', url: `/api/polls/${notStarted.id}`, headers: author.headers, payload: { name: 'Neu' } });
      expect(edit.statusCode, edit.body).toBe(200);

      const fabian = demo.users.find((u) => u.email === 'foodsaver@example.org')!;
      const session = await logInAs(t.app, fabian);
      const store = demo.community.stores[0]!;
      const now = t.clock.now().getTime();
      const free = store.pickups.filter((p) => Date.parse(p.at) > now && p.signedUp.length < p.capacity);
      expect(free.length).toBeGreaterThan(0);
      const signup = await t.app.inject({ method: 'POST', url: `/api/stores/${store.id}/pickups/${free[0]!.at}/${fabian.id}`, headers: session.headers });
      expect(signup.statusCode, signup.body).toBe(200);
    } finally {
      await t.close();
    }
  });
});
