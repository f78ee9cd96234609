/**
 * Opens the configured database: PostgreSQL through a `pg` pool when a URL is
 * given, otherwise the embedded PGlite under `<dataDir>/pglite`. Both speak the
 * same SQL, run the same migrations and sit behind the same Kysely instance.
 */
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.ts';
import { listenForNotifications, type NotificationHandlers, type Subscription } from './notifications.ts';
import { PGliteDialect, type PGliteQueries } from './pglite-dialect.ts';
import { guardPool } from './unavailable.ts';
import { withStartTieringBudget } from './wasm-tiering.ts';
import type { Database } from './schema.ts';

export type DB = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: DB;
  readonly kind: 'postgres' | 'pglite';
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** PostgreSQL: the connection pool's use right now (PGlite has one connection and no pool). */
  poolUse?(): PoolUse;
  /**
   * PostgreSQL: `LISTEN` on `channel` over a connection of its own (db/notifications.ts). PGlite has
   * none: its data directory admits one process, so no other process can change the database under
   * a running server (the CLI cannot open it while the server runs).
   */
  listen?(channel: string, handlers: NotificationHandlers): Subscription;
  close(): Promise<void>;
}

export interface PoolUse { readonly max: number; readonly open: number; readonly idle: number; readonly waiting: number }

export type DatabaseTarget =
  | {
    readonly kind: 'postgres'; readonly url: string; readonly schema?: string; readonly poolSize?: number;
    /** Connect timeout and statement_timeout; a query unanswered a second longer fails as unavailable. */
    readonly timeoutMs?: number;
  }
  | { readonly kind: 'pglite'; readonly dataDir?: string; /** Start from a `dumpDataDir()` tarball (tests). */ readonly snapshot?: Blob };

/** DATABASE_TIMEOUT_SECONDS' default: a request needing a database that does not answer gets its 503 in seconds. */
export const DEFAULT_DATABASE_TIMEOUT_MS = 5_000;
/** The server's statement_timeout answers first while it can; the client's deadline is for a silent one. */
const QUERY_DEADLINE_MARGIN_MS = 1_000;
/** A transaction left open by a vanished instance releases its locks after this (server side). */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
const KEEPALIVE_DELAY_MS = 10_000;
const INT8_OID = 20;
const NUMERIC_OID = 1700;

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  return target.kind === 'postgres' ? openPostgres(target) : openPglite(target.dataDir, target.snapshot);
}

async function openPostgres(target: { url: string; schema?: string; poolSize?: number; timeoutMs?: number }): Promise<DatabaseHandle> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const max = target.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: target.url,
    max,
    // Waiting for a connection (a new one, or a free one of a full pool) ends here, as unavailable.
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: timeoutMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    // Idle connections to a host that vanished are found by the kernel, not by the next request.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardPool(pool, timeoutMs + QUERY_DEADLINE_MARGIN_MS) }) });
  return {
    db,
    kind: 'postgres',
    ping: async () => { await sql`select 1`.execute(db); },
    poolUse: () => ({ max, open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, handlers) => listenForNotifications({ url: target.url, schema: target.schema, connectTimeoutMs: timeoutMs }, channel, handlers),
    close: () => db.destroy(),
  };
}

/**
 * PostgreSQL's buffer cache in the embedded database. PGlite starts with
 * PostgreSQL's default of 128 MB, all of it written in the WebAssembly memory
 * at every start: about 0.1 s of CPU and 110 MB of resident memory more than
 * this. The embedded database serves development and small installations
 * (production requires DATABASE_URL), whose data fits.
 */
const EMBEDDED_SHARED_BUFFERS = '32MB';

async function openPglite(dataDir: string | undefined, snapshot: Blob | undefined): Promise<DatabaseHandle> {
  const lock = dataDir === undefined ? undefined : lockDataDir(dataDir);
  try {
    const pglite = await createEmbeddedDatabase(dataDir, snapshot);
    return embeddedHandle(pglite, async () => {
      await pglite.close();
      lock?.release();
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/** Starts PGlite: on `<dataDir>/pglite`, or in memory (from a `dumpDataDir()` tarball when given). */
export async function createEmbeddedDatabase(dataDir: string | undefined, snapshot: Blob | undefined): Promise<PGlite> {
  return startPglite({
    ...(dataDir === undefined ? {} : { directory: path.join(dataDir, 'pglite') }),
    ...(snapshot === undefined ? {} : { load: snapshot }),
  });
}

/**
 * Starts PGlite as this application runs it, the server and the CLI's `db backup | restore` alike: on `directory`
 * (in memory without), loading `load` (a `dumpDataDir()` tarball) first when given.
 */
export async function startPglite(options: { directory?: string; load?: Blob }): Promise<PGlite> {
  // Loaded only for the embedded database: a PostgreSQL deployment never pays for it.
  const { PGlite } = await import('@electric-sql/pglite');
  return withStartTieringBudget(() => PGlite.create({
    ...(options.directory === undefined ? {} : { dataDir: options.directory }),
    ...(options.load === undefined ? {} : { loadDataDir: options.load }),
    parsers: { [INT8_OID]: Number, [NUMERIC_OID]: Number },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
  }));
}

/** A handle on an embedded database's queries; `close` runs after Kysely is destroyed. */
export function embeddedHandle(pglite: PGliteQueries, close: () => Promise<void>): DatabaseHandle {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    ping: async () => { await sql`select 1`.execute(db); },
    close: async () => {
      await db.destroy();
      await close();
    },
  };
}
