/**
 * Marks the errors that mean "the database cannot be reached" with a stable
 * code, so that callers classify them by code (503), never by message text.
 * pg's own connection errors carry none: "timeout exceeded when trying to
 * connect", "Connection terminated unexpectedly" and their kin.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { preparedStatementName } from './statement.ts';

export const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';

export class DatabaseUnavailableError extends Error {
  readonly code = DATABASE_UNAVAILABLE;
  constructor(cause: Error) {
    super(cause.message, { cause }); // same text as before, for logs
    this.name = 'DatabaseUnavailableError';
  }
}

/** The pool Kysely sees: connection failures, and failures of a client whose connection ended, are tagged. */
export function guardPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        throw isCodeless(error) ? new DatabaseUnavailableError(error) : error;
      });
      let guarded = clients.get(client);
      if (!guarded) {
        guarded = guardClient(client);
        clients.set(client, guarded); // one wrapper per connection: Kysely keys its connections by client
      }
      return guarded;
    },
    end: () => pool.end(),
  };
}

function guardClient(client: pg.PoolClient): PostgresPoolClient {
  let lost = false;
  // pg emits 'error' on a checked-out client whose connection died, synchronously, before its queries are
  // rejected. pg-pool listens only while the client is idle: without this listener the process would crash.
  client.on('error', () => { lost = true; });
  client.once('end', () => { lost = true; });
  return {
    query: (async (sql: string, parameters: readonly unknown[]) => {
      try {
        const name = preparedStatementName(sql);
        const result = name === undefined ? client.query(sql, [...parameters]) : client.query({ name, text: sql, values: [...parameters] });
        return await result as unknown as PostgresQueryResult<unknown>;
      } catch (error) {
        throw lost && isCodeless(error) ? new DatabaseUnavailableError(error) : error;
      }
    }) as PostgresPoolClient['query'],
    release: () => client.release(),
  };
}

/** Not a server's answer (pg.DatabaseError carries a SQLSTATE) nor a system error (ECONNREFUSED, ...). */
function isCodeless(error: unknown): error is Error {
  return error instanceof Error && !(error instanceof pg.DatabaseError) && (error as { code?: unknown }).code === undefined;
}
