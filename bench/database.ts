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

export async function openBenchDatabase(forcePglite: boolean): Promise<BenchDatabase> {
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
  const name = `bench_${process.pid}`;
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

/**
 * `--big`: 100,000 users, 500,000 grants of demo-app with two refresh-token
 * rows each (one rotated, one live: 1,000,000 rows) and 1,000,000 expired,
 * unused codes — a few big INSERT … SELECT statements, then ANALYZE.
 */
export async function seedBig(url: string, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const step = async (label: string, text: string) => {
      const started = performance.now();
      const result = await client.query(text);
      log(`  ${label}: ${result.rowCount ?? 0} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };
    const { rows } = await client.query<{ id: number }>(`select id from oauth_clients where client_id = 'demo-app'`);
    const clientId = rows[0]?.id;
    if (clientId === undefined) throw new Error('--big: the demo client demo-app is missing');
    const { rows: before } = await client.query<{ users: number; grants: number }>(
      'select coalesce(max(id), 0)::int as users, (select coalesce(max(id), 0)::int from oauth_grants) as grants from users');
    const firstUser = before[0]!.users + 1;
    const firstGrant = before[0]!.grants + 1;
    await step('users', `insert into users (id, email, password_hash, first_name, last_name, role, verified)
      select ${firstUser} + g, 'bench-user-' || g || '@example.org', 'x', 'Bench', 'User ' || g, 1, true
      from generate_series(0, 99999) g`);
    await client.query(`select setval(pg_get_serial_sequence('users', 'id'), (select max(id) from users))`);
    await step('grants', `insert into oauth_grants (id, client_id, user_id, scopes, auth_time, created_at, expires_at)
      select ${firstGrant} + g, ${clientId}, ${firstUser} + (g % 100000), '{openid,profile,email}', now() - interval '1 day',
        now() - interval '1 day', now() + interval '29 days'
      from generate_series(0, 499999) g`);
    await client.query(`select setval(pg_get_serial_sequence('oauth_grants', 'id'), (select max(id) from oauth_grants))`);
    await step('refresh tokens', `insert into oauth_refresh_tokens (grant_id, scopes, created_at, expires_at, rotated_at)
      select ${firstGrant} + g, '{openid,profile,email}', now() - interval '1 day', now() + interval '29 days',
        case when k = 0 then now() - interval '1 hour' end
      from generate_series(0, 499999) g cross join generate_series(0, 1) k`);
    await step('expired codes', `insert into oauth_codes (code_digest, client_id, user_id, redirect_uri, scopes, code_challenge,
        auth_time, created_at, expires_at)
      select sha256(('bench-expired-code-' || g)::bytea), ${clientId}, ${firstUser} + (g % 100000), 'http://127.0.0.1:3000/callback',
        '{openid,profile,email}', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', now() - interval '2 hours', now() - interval '2 hours',
        now() - interval '1 hour'
      from generate_series(0, 999999) g`);
    await step('analyze', 'analyze');
  } finally {
    await client.end().catch(() => {});
  }
}
