/**
 * The in-memory databases of the PGlite run, kept for the next test file of
 * the same worker. Opening one from the run's snapshot costs 0.4–0.6 s of CPU
 * (PostgreSQL's start in WebAssembly), ~160 times a run; emptying one that a
 * file used costs ~10 ms. A worker runs its files one after another in one
 * module registry (vitest.config.ts, `isolate: false`), so this module's pool
 * lives as long as the worker.
 *
 * A file gets a lease: its own Kysely over the instance, which refuses every
 * query once the lease is returned, so that nothing a finished file left
 * running reaches the next file's data. On return the instance is brought
 * back to the snapshot's state — any transaction rolled back, the session
 * discarded (settings, temporary tables, locks), every table but
 * `schema_migrations` emptied, every sequence restarted — and kept only if
 * nothing was written to the catalogs while it was lent (a test that changed
 * the schema, even a temporary table, a comment, a large object or the
 * planner's statistics, or a failed reset closes the instance instead).
 * What a kept instance still carries: its tables' dead rows and statistics
 * counters (`pg_stat_*`; at most {@link MAX_LEASES} files' worth), custom
 * settings a test defined with `set_config` (empty, where a fresh database
 * has none), and `alter system` (never used by a test).
 * No test may call `pg_stat_reset()`, which would hide its catalog writes.
 */
import type { PGlite } from '@electric-sql/pglite';
import { createEmbeddedDatabase, embeddedHandle, type DatabaseHandle } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

/** Instances kept idle per worker; a file rarely uses more than one at a time. */
const MAX_IDLE = 2;
/** Leases per instance before it is closed: deleted rows stay in its tables until then. */
const MAX_LEASES = 30;

interface Instance {
  readonly pglite: PGlite;
  /** Rows written to the catalogs since the instance was opened (and migrated): unchanged while no test changed the schema. */
  readonly catalogWrites: number;
  leases: number;
}

/** Empties every table and restarts every sequence, in one implicit transaction: the same for every instance. */
let resetScript: Promise<string> | undefined;
const idle: Instance[] = [];

/** Instances this worker keeps for its next files. */
export function idleDatabases(): number {
  return idle.length;
}

/** Closes the worker's kept instances, so that the next lease opens a fresh one (for the pool's own test). */
export async function closeIdleDatabases(): Promise<void> {
  for (const instance of idle.splice(0)) await instance.pglite.close();
}

/** A database for one test file: a kept instance when the worker has one, otherwise one opened from `snapshot`. */
export async function leaseDatabase(snapshot: Blob | undefined): Promise<DatabaseHandle> {
  const instance = idle.pop() ?? await open(snapshot);
  instance.leases += 1;
  let returned: Promise<void> | undefined;
  const { pglite } = instance;
  const refuse = () => { throw new Error('PGlite is closed'); };
  const queries = {
    query: ((...args: Parameters<PGlite['query']>) => returned ? refuse() : pglite.query(...args)) as PGlite['query'],
    exec: ((...args: Parameters<PGlite['exec']>) => returned ? refuse() : pglite.exec(...args)) as PGlite['exec'],
  };
  return embeddedHandle(queries, () => {
    returned ??= giveBack(instance);
    return returned;
  });
}

async function open(snapshot: Blob | undefined): Promise<Instance> {
  const pglite = await createEmbeddedDatabase(undefined, snapshot);
  await migrate(embeddedHandle(pglite, async () => {}).db); // a no-op on the snapshot, unless a migration was added since
  resetScript ??= readResetScript(pglite);
  await resetScript;
  return { pglite, catalogWrites: await catalogWrites(pglite), leases: 0 };
}

async function giveBack(instance: Instance): Promise<void> {
  const kept = instance.leases < MAX_LEASES && idle.length < MAX_IDLE && await reset(instance)
    && idle.length < MAX_IDLE; // again: other files' databases may have come back during the reset
  if (kept) idle.push(instance);
  else await instance.pglite.close();
}

async function reset({ pglite, catalogWrites: before }: Instance): Promise<boolean> {
  try {
    await pglite.exec('rollback'); // a transaction a test left open (outside one: a warning only)
    await pglite.exec('discard all');
    if (await catalogWrites(pglite) !== before) return false;
    await pglite.exec(await resetScript!);
    return true;
  } catch {
    return false;
  }
}

async function readResetScript(pglite: PGlite): Promise<string> {
  const tables = await pglite.query<{ name: string }>(`
    select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname = current_schema() and c.relname <> 'schema_migrations'`);
  const sequences = await pglite.query<{ name: string; value: string; called: boolean }>(`
    select format('%I.%I', schemaname, sequencename) as name, coalesce(last_value, start_value)::text as value, last_value is not null as called
    from pg_sequences where schemaname = current_schema()`);
  const restart = sequences.rows.map((s) => `setval('${s.name}', ${s.value}, ${s.called})`);
  return [
    // Every table is emptied, so no foreign key can be left dangling: their triggers (and the tables' own) are skipped.
    'set session_replication_role = replica',
    ...tables.rows.map((t) => `delete from ${t.name}`),
    'reset session_replication_role',
    ...(restart.length > 0 ? [`select ${restart.join(', ')}`] : []),
  ].join(';\n');
}

/** What a change of the schema writes to (and the applied migrations). */
const SCHEMA_TABLES = [
  'pg_class', 'pg_attribute', 'pg_attrdef', 'pg_constraint', 'pg_depend', 'pg_index', 'pg_type', 'pg_namespace', 'pg_proc',
  'pg_trigger', 'pg_event_trigger', 'pg_rewrite', 'pg_sequence', 'pg_enum', 'pg_policy', 'pg_extension',
  'pg_description', 'pg_default_acl', 'pg_publication', 'pg_largeobject_metadata', 'pg_statistic',
  'pg_authid', 'pg_auth_members', 'pg_database', 'pg_db_role_setting', 'schema_migrations',
];
const CATALOG_WRITES = `select (${SCHEMA_TABLES.map((table) => `pg_stat_get_tuples_inserted('${table}'::regclass) + pg_stat_get_tuples_updated('${table}'::regclass) + pg_stat_get_tuples_deleted('${table}'::regclass)`).join(' + ')})::text as writes`;

/** Rows inserted, updated or deleted in {@link SCHEMA_TABLES} since the instance started (cumulative statistics, flushed first). */
async function catalogWrites(pglite: PGlite): Promise<number> {
  await pglite.query('select pg_stat_force_next_flush()');
  const { rows } = await pglite.query<{ writes: string }>(CATALOG_WRITES);
  return Number(rows[0]!.writes);
}
