import pg from 'pg';
import type { Config } from '../config.ts';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './database.ts';

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR. */
export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl !== undefined
    ? { kind: 'postgres', url: config.databaseUrl, timeoutMs: config.databaseTimeoutSeconds * 1000 }
    : { kind: 'pglite', dataDir: config.dataDir };
}

/** A configured PostgreSQL that did not let us in, named by DATABASE_URL's host and port (never its password). */
export class DatabaseConnectError extends Error {
  constructor(readonly address: string, reason: string, cause: unknown) {
    super(`cannot connect to the database at ${address} (DATABASE_URL): ${reason}`, { cause });
    this.name = 'DatabaseConnectError';
  }
}

/**
 * Opens the configured database for the server and the CLI. PostgreSQL is
 * asked once at once, so that a refused, unknown or silent server stops the
 * start with a line naming DATABASE_URL and the address tried, instead of
 * pg's bare "connect ECONNREFUSED" from the first migration.
 */
export async function openConfiguredDatabase(config: Config): Promise<DatabaseHandle> {
  const target = databaseTarget(config);
  const handle = await openDatabase(target);
  if (target.kind === 'pglite') return handle;
  const started = performance.now();
  try {
    await handle.ping();
    return handle;
  } catch (error) {
    // Whether the deadline ran out, read off the time it took: pg's own errors say so only in their text.
    const timedOut = performance.now() - started >= 0.9 * config.databaseTimeoutSeconds * 1000;
    await handle.close().catch(() => {});
    throw new DatabaseConnectError(addressOf(target.url), reasonOf(error, config.databaseTimeoutSeconds, timedOut), error);
  }
}

/** host:port as pg takes them from the URL (a `host` parameter names a socket directory). */
export function addressOf(url: string): string {
  const parsed = new URL(url);
  const host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host') || 'localhost';
  return `${host}:${parsed.port || '5432'}`;
}

const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS did not answer)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
};

function reasonOf(error: unknown, timeoutSeconds: number, timedOut: boolean): string {
  // The server answered: its own words ("password authentication failed for user …", "database … does not exist").
  const answer = error instanceof pg.DatabaseError ? error : (error as { cause?: unknown }).cause;
  if (answer instanceof pg.DatabaseError) return answer.message;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && REASONS[code]) return REASONS[code];
  // pg's code-less connection errors: the deadline ran out (nothing answered, or a pooler let us in and its
  // database never answered), or the other side closed the connection before it (a server or pooler restarting).
  if (code === 'DATABASE_UNAVAILABLE') {
    return timedOut ? `no answer within ${timeoutSeconds} s (DATABASE_TIMEOUT_SECONDS)` : 'the address answered, then closed the connection';
  }
  return error instanceof Error ? error.message : String(error);
}
