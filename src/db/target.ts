import type { Config } from '../config.ts';
import type { DatabaseTarget } from './database.ts';

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR. */
export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl !== undefined
    ? { kind: 'postgres', url: config.databaseUrl, timeoutMs: config.databaseTimeoutSeconds * 1000 }
    : { kind: 'pglite', dataDir: config.dataDir };
}
