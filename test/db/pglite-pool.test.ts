/**
 * The PGlite run's databases are kept for the worker's next test file
 * (helpers/pglite-pool.ts): what a file did must not reach the next one.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { closeIdleDatabases, idleDatabases } from '../helpers/pglite-pool.ts';

const leased: TestDatabase[] = [];
afterAll(async () => { for (const database of leased) await database.drop(); });

async function lease(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  leased.push(database);
  return database;
}

const count = async (handle: DatabaseHandle, table: 'users' | 'regions') =>
  Number((await handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const setting = async (handle: DatabaseHandle, name: 'timezone' | 'statement_timeout') =>
  (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(handle.db)).rows[0]!.value;

describe.skipIf(TEST_DATABASE_URL)('a PGlite database kept for the next test file', () => {
  // An instance the worker kept may have been lent to earlier files up to its limit, and would then be
  // closed, not kept, when given back: these tests start from a fresh one.
  beforeAll(closeIdleDatabases);
  it('comes back empty, its sequences restarted, its session reset, and the lease given back refuses every query', async () => {
    const first = await lease();
    const fresh = { timezone: await setting(first.handle, 'timezone'), statementTimeout: await setting(first.handle, 'statement_timeout') };
    const region = await makeRegion(first.handle.db);
    const user = await makeUser(first.handle.db, { regionIds: [region] });
    await sql`set timezone = 'Pacific/Auckland'`.execute(first.handle.db);
    await sql`set statement_timeout = 1234`.execute(first.handle.db);
    // A transaction still open when the file gives the database back, whose next statement comes after.
    let inserted!: () => void;
    let resume!: () => void;
    const insertedFirst = new Promise<void>((resolve) => { inserted = resolve; });
    const resumed = new Promise<void>((resolve) => { resume = resolve; });
    const straggler = first.handle.db.transaction().execute(async (trx) => {
      await sql`insert into regions (name, type, parent_id) values ('before the return', 'region', null)`.execute(trx);
      inserted();
      await resumed;
      await sql`insert into regions (name, type, parent_id) values ('after the return', 'region', null)`.execute(trx);
    });
    await insertedFirst;
    const idleBefore = idleDatabases();
    await first.drop();
    expect(idleDatabases()).toBe(idleBefore + 1);
    resume();
    await expect(straggler).rejects.toThrow('PGlite is closed');
    await expect(first.handle.db.selectFrom('users').select('id').execute()).rejects.toThrow();

    const second = await lease();
    expect(idleDatabases()).toBe(idleBefore); // the same instance, lent again
    expect({ users: await count(second.handle, 'users'), regions: await count(second.handle, 'regions') }).toEqual({ users: 0, regions: 0 });
    expect({ timezone: await setting(second.handle, 'timezone'), statementTimeout: await setting(second.handle, 'statement_timeout') }).toEqual(fresh);
    // The ids start where a fresh database starts theirs.
    expect(await makeRegion(second.handle.db)).toBe(region);
    expect((await makeUser(second.handle.db)).id).toBe(user.id);
    await second.drop();
  });

  it('is closed, not kept, when a test changed the schema, even with a temporary table, a comment, a large object or statistics', async () => {
    for (const change of ['alter table users add column left_behind integer', 'create temporary table scratch (id integer)',
      "comment on table users is 'left behind'", "select lo_from_bytea(0, 'left behind')",
      "insert into regions (name, type, parent_id) values ('analysed', 'region', null); analyze regions"]) {
      const database = await lease();
      await sql.raw(change).execute(database.handle.db);
      const idleBefore = idleDatabases();
      await database.drop();
      expect(idleDatabases()).toBe(idleBefore);
    }
    const next = await lease();
    expect((await sql<{ comment: string | null }>`select obj_description('users'::regclass, 'pg_class') as comment`.execute(next.handle.db)).rows)
      .toEqual([{ comment: null }]);
    const columns = await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = 'users' and column_name = 'left_behind'`
      .execute(next.handle.db);
    expect(columns.rows).toEqual([]);
  });

  it('keeps no more than two idle databases per worker, however many files give theirs back at once', async () => {
    const many = await Promise.all([lease(), lease(), lease(), lease()]);
    await Promise.all(many.map((database) => database.drop()));
    expect(idleDatabases()).toBe(2);
  });
});
