/**
 * Numbered SQL migrations (`migrations/NNN_name.sql`), applied in order inside
 * one transaction that first takes a PostgreSQL advisory lock of the schema: two
 * instances starting at once on one schema serialise here, and the second finds nothing left to do.
 * Landed migration files are never edited; a change is a new file.
 */
import { readdir, readFile } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import { lockForTransaction } from './transaction.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
/** Arbitrary constant naming this application's migration lock. */
export const MIGRATION_LOCK_KEY = 7_140_523_981;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export async function listMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[a-z0-9_-]+\.sql$/.test(f)).sort();
  return Promise.all(files.map(async (file) => ({
    version: Number(file.slice(0, 3)),
    name: file.slice(4, -4),
    sql: await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'),
  })));
}

/** Applies every pending migration; returns the names applied (empty when up to date). */
export async function migrate(db: Kysely<any>): Promise<string[]> {
  const migrations = await listMigrations();
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, MIGRATION_LOCK_KEY);
    await sql`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`.execute(trx);
    const { rows } = await sql<{ version: number }>`select version from schema_migrations`.execute(trx);
    const applied = new Set(rows.map((r) => r.version));
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await sql.raw(migration.sql).execute(trx);
      await sql`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`.execute(trx);
      done.push(`${String(migration.version).padStart(3, '0')}_${migration.name}`);
    }
    return done;
  });
}
