/**
 * A freshly migrated database per test file: in-memory PGlite by default
 * (an instance a previous file of the worker used, emptied: pglite-pool.ts);
 * with TEST_DATABASE_URL, a new schema on that PostgreSQL, dropped afterwards,
 * so concurrent runs never see each other's data.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { leaseDatabase } from './pglite-pool.ts';

export interface TestDatabase {
  readonly handle: DatabaseHandle;
  /** PostgreSQL: the schema holding this database (for a second connection pool onto it). */
  readonly schema?: string;
  /** Closes the connections and drops the schema (PostgreSQL). */
  drop(): Promise<void>;
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DATABASE_URL === undefined) {
    const handle = await leaseDatabase(await migratedSnapshot());
    return { handle, drop: () => handle.close() };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await withAdminClient((client) => client.query(`create schema ${schema}`));
  const handle = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema, poolSize: 5 });
  await migrate(handle.db);
  return {
    handle,
    schema,
    drop: async () => {
      await handle.close();
      await withAdminClient((client) => client.query(`drop schema ${schema} cascade`));
    },
  };
}

let snapshot: Promise<Blob | undefined> | undefined;

/** The run's migrated database (test/helpers/global-setup.ts), or undefined outside vitest's global setup. */
function migratedSnapshot(): Promise<Blob | undefined> {
  snapshot ??= (async () => {
    const file = inject('pgliteSnapshot');
    return file ? new Blob([await readFile(file)]) : undefined;
  })();
  return snapshot;
}

/** A connection to TEST_DATABASE_URL for the length of `work` (creating and dropping databases and schemas). */
export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
