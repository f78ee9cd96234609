/**
 * Two instances' database handles on one database, for tests of what
 * instances share: on PGlite one handle (one process owns its data
 * directory), on PostgreSQL a second connection pool on the same schema.
 * Each teardown step is pushed to `cleanup`, to run in reverse order.
 */
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import type { Config } from '../../src/config.ts';
import type { KeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { testConfig, testKeys } from './app.ts';
import { createTestDatabase, TEST_DATABASE_URL } from './database.ts';

export interface SiblingDatabases {
  config: Config;
  keys: KeyMaterial;
  first: DatabaseHandle;
  second: DatabaseHandle;
}

export async function siblingDatabases(cleanup: (() => Promise<void>)[]): Promise<SiblingDatabases> {
  const { config, removeDataDir } = await testConfig();
  const database = await createTestDatabase();
  cleanup.push(removeDataDir, () => database.drop());
  const second = TEST_DATABASE_URL === undefined ? database.handle
    : await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL, schema: database.schema!, poolSize: 3 });
  if (second !== database.handle) cleanup.push(() => second.close());
  return { config, keys: await testKeys(), first: database.handle, second };
}
