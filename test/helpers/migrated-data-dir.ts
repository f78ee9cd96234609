/**
 * The run's migrated embedded database (test/helpers/global-setup.ts) copied
 * into a DATA_DIR, for tests of what a command or a start does on a database
 * that exists rather than of creating it: initdb and every migration take
 * seconds of CPU per directory. The first start and the first CLI command on
 * an empty directory keep tests of their own (main/start.test.ts,
 * cli/cli-accounts.test.ts).
 */
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { inject } from 'vitest';

/** Copies the migrated database into `dataDir` (as `dataDir/pglite`, no keys). */
export async function copyMigratedDatabase(dataDir: string): Promise<void> {
  await cp(path.join(inject('migratedDataDir'), 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
}
