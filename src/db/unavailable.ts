/**
 * Marks the errors that mean "the database cannot be reached" with a stable
 * code, so that callers classify them by code (503), never by message text.
 * pg's own connection errors carry none: "timeout exceeded when trying to
 * connect", "Connection terminated unexpectedly" and their kin. A query that
 * gets no answer (a database or network that went silent with the connection
 * open) fails the same way after a deadline, and its connection is discarded.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import pg from 'pg';
import { preparedStatementName } from './statement.ts';

export const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';
/** SQLSTATE query_canceled: the server gave up on a statement (statement_timeout). */
const QUERY_CANCELED = '57014';

export class DatabaseUnavailableError extends Error {
  readonly code = DATABASE_UNAVAILABLE;
  /** Which store did not answer: the log names it, so that an operator looks at the right one. */
  constructor(cause: Error, readonly store: 'database' | 'redis' = 'database') {
    super(cause.message, { cause }); // same text as before, for logs
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * The pool Kysely sees: connection failures, failures of a client whose connection ended, queries that
 * get no answer within `queryTimeoutMs` and statements the server cancelled are tagged.
 */
export function guardPool(pool: pg.Pool, queryTimeoutMs: number): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        // A server that answers a new connection with an error (not accepting connections, shutting down,
        // too many clients, a failed-over or dropped database, a password no longer valid) is unavailable
        // to every request alike; the cause keeps the server's own words for the start-up message.
        throw isCodeless(error) || error instanceof pg.DatabaseError ? new DatabaseUnavailableError(error) : error;
      });
      let guarded = clients.get(client);
      if (!guarded) {
        guarded = guardClient(client, queryTimeoutMs);
        clients.set(client, guarded); // one wrapper per connection: Kysely keys its connections by client
      }
      return guarded;
    },
    end: () => pool.end(),
  };
}

function guardClient(client: pg.PoolClient, queryTimeoutMs: number): PostgresPoolClient {
  // Lost: the connection died or a query on it went unanswered. It is never used again: further queries
  // (a transaction's rollback) fail at once, and release() makes the pool destroy it instead of keeping it.
  let lost = false;
  // pg emits 'error' on a checked-out client whose connection died, synchronously, before its queries are
  // rejected. pg-pool listens only while the client is idle: without this listener the process would crash.
  client.on('error', () => { lost = true; });
  client.once('end', () => { lost = true; });
  return {
    query: (async (sql: string, parameters: readonly unknown[]) => {
      if (lost) throw new DatabaseUnavailableError(new Error('the database connection was lost'));
      try {
        const name = preparedStatementName(sql);
        const result = name === undefined ? client.query(sql, [...parameters]) : client.query({ name, text: sql, values: [...parameters] });
        return await withDeadline(result, queryTimeoutMs, () => { lost = true; }) as unknown as PostgresQueryResult<unknown>;
      } catch (error) {
        throw isUnavailable(error, lost) ? new DatabaseUnavailableError(error as Error) : error;
      }
    }) as PostgresPoolClient['query'],
    // pg-pool removes a client released with an error; ending one with a query in flight destroys its socket.
    release: () => client.release(lost ? true : undefined),
  };
}

class QueryTimeout extends Error {}

/**
 * Rejects with {@link QueryTimeout} when `work` has not settled within `ms`. pg's own `query_timeout`
 * rejects with a code-less error recognisable only by its message and leaves the client in the pool.
 */
function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new QueryTimeout(`no answer from the database within ${ms} ms`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function isUnavailable(error: unknown, lost: boolean): boolean {
  if (error instanceof QueryTimeout) return true;
  if (error instanceof pg.DatabaseError) return error.code === QUERY_CANCELED;
  return lost && isCodeless(error);
}

/** Not a server's answer (pg.DatabaseError carries a SQLSTATE) nor a system error (ECONNREFUSED, ...). */
function isCodeless(error: unknown): error is Error {
  return error instanceof Error && !(error instanceof pg.DatabaseError) && (error as { code?: unknown }).code === undefined;
}
