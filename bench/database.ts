/**
 * The bench's database: PostgreSQL when DATABASE_URL is set or 127.0.0.1:5432
 * answers — a database `bench_<pid>` of its own, created and dropped through
 * the server's `postgres` database — otherwise the embedded PGlite in a
 * temporary DATA_DIR. Also the `--big` seed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A database the bench cannot use: reported without a stack trace. */
export class DatabaseSetupError extends Error {}

export interface BenchDatabase {
  readonly kind: 'postgres' | 'pglite';
  /** The bench database (PostgreSQL only). */
  readonly url: string | undefined;
  /** DATA_DIR of the server (keys; PGlite's files). */
  readonly dataDir: string;
  readonly describe: string;
  drop(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/** `suffix`: a second database beside `bench_<pid>`, named `bench_<pid>_<suffix>` (`--big`: `big`). */
export async function openBenchDatabase(forcePglite: boolean, suffix?: string): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-data-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const configured = process.env.DATABASE_URL;
  const adminUrl = forcePglite ? undefined
    : configured ? withDatabase(configured, 'postgres')
      : (await answers(LOCAL_POSTGRES)) ? LOCAL_POSTGRES : undefined;
  if (!adminUrl) {
    return {
      kind: 'pglite', url: undefined, dataDir,
      describe: `PGlite (embedded, ${forcePglite ? '--pglite' : 'no PostgreSQL at 127.0.0.1:5432 and no DATABASE_URL'}) in ${dataDir}`,
      drop: async () => removeDataDir(),
    };
  }
  const name = `bench_${process.pid}${suffix ? `_${suffix}` : ''}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
  } catch (error) {
    removeDataDir();
    throw new DatabaseSetupError(`cannot create the bench database ${name} on ${redact(adminUrl)}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await admin.end().catch(() => {});
  }
  const url = withDatabase(adminUrl, name);
  const version = await serverVersion(url);
  return {
    kind: 'postgres', url, dataDir,
    describe: `PostgreSQL ${version} at ${new URL(url).host}, database ${name} (created for this run, dropped after)`,
    drop: async () => {
      removeDataDir();
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
      try {
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end().catch(() => {});
      }
    },
  };
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0]?.server_version.split(' ')[0] ?? '?';
  } finally {
    await client.end().catch(() => {});
  }
}

/** Pids of the PostgreSQL backends serving the bench database, when it runs on this machine (their CPU is read from /proc). */
export function backendPids(url: string): (() => Promise<number[]>) & { close(): Promise<void> } {
  let client: pg.Client | undefined;
  const list = async () => {
    if (!client) {
      client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
    }
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((r) => r.pid);
  };
  return Object.assign(list, { close: async () => { await client?.end().catch(() => {}); client = undefined; } });
}

/** Whether the database's server runs on this machine (its processes' /proc is ours to read). */
export function isLocal(url: string): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
}

/**
 * `--big`: `rows` (1,000,000 by default) grants of demo-app with one live
 * refresh-token row each, `rows` sessions, and `rows / 10` users, each a
 * member of the region the REST read reads — INSERT … SELECT over
 * generate_series, a statement per table, then ANALYZE.
 */
export async function seedBig(url: string, log: (line: string) => void, rows: number, regionId: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const users = Math.max(1, Math.floor(rows / 10));
  try {
    const step = async (label: string, text: string) => {
      const started = performance.now();
      const result = await client.query(text);
      log(`  ${label}: ${(result.rowCount ?? 0).toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    const { rows: found } = await client.query<{ id: number }>(`select id from oauth_clients where client_id = 'demo-app'`);
    const clientId = found[0]?.id;
    if (clientId === undefined) throw new Error('--big: the demo client demo-app is missing');
    const { rows: before } = await client.query<{ users: number; grants: number }>(
      'select coalesce(max(id), 0)::int as users, (select coalesce(max(id), 0)::int from oauth_grants) as grants from users');
    const firstUser = before[0]!.users + 1;
    const firstGrant = before[0]!.grants + 1;
    await step('users', `insert into users (id, email, password_hash, first_name, last_name, role, verified)
      select ${firstUser} + g, 'bench-user-' || g || '@example.org', 'x', 'Bench', 'User ' || g, 1, true
      from generate_series(0, ${users - 1}) g`);
    await client.query(`select setval(pg_get_serial_sequence('users', 'id'), (select max(id) from users))`);
    await step('members', `insert into region_memberships (user_id, region_id)
      select ${firstUser} + g, ${regionId} from generate_series(0, ${users - 1}) g`);
    await step('grants', `insert into oauth_grants (id, client_id, user_id, scopes, auth_time, created_at, expires_at)
      select ${firstGrant} + g, ${clientId}, ${firstUser} + (g % ${users}), '{openid,profile,email}', now() - interval '1 day',
        now() - interval '1 day', now() + interval '29 days'
      from generate_series(0, ${rows - 1}) g`);
    await client.query(`select setval(pg_get_serial_sequence('oauth_grants', 'id'), (select max(id) from oauth_grants))`);
    await step('refresh tokens', `insert into oauth_refresh_tokens (grant_id, scopes, created_at, expires_at)
      select ${firstGrant} + g, '{openid,profile,email}', now() - interval '1 day', now() + interval '29 days'
      from generate_series(0, ${rows - 1}) g`);
    await step('sessions', `insert into sessions (id_digest, user_id, csrf_token, remember, auth_time, expires_at)
      select sha256(('bench-session-' || g)::bytea), ${firstUser} + (g % ${users}), 'x', false, now(), now() + interval '1 day'
      from generate_series(0, ${rows - 1}) g`);
    await step('analyze', 'analyze');
  } finally {
    await client.end().catch(() => {});
  }
}
