/**
 * A log of every row written to the app's tables, kept by triggers in a schema
 * of its own (so that {@link databaseDigest} never sees it): a cheap "nothing
 * was written" after each of many requests. Rows written by a transaction that
 * rolls back leave no entry. An UPDATE to identical values does: the digest
 * decides then.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { DB } from '../../src/db/database.ts';

export interface WriteLog {
  /** The tables written since the last call (and forgets them). */
  take(): Promise<string[]>;
}

export async function installWriteLog(db: DB): Promise<WriteLog> {
  const schema = `write_log_${randomBytes(6).toString('hex')}`;
  const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  await sql`create schema ${sql.id(schema)}`.execute(db);
  await sql`create table ${sql.id(schema, 'writes')} (table_name text not null)`.execute(db);
  await sql.raw(`create function "${schema}".note() returns trigger language plpgsql as $$
    begin insert into "${schema}".writes values (TG_TABLE_NAME); return null; end $$`).execute(db);
  for (const { name } of tables) {
    await sql.raw(`create trigger "${schema}_rows" after insert or update or delete on "${name}"
      for each row execute function "${schema}".note()`).execute(db);
    await sql.raw(`create trigger "${schema}_truncate" after truncate on "${name}"
      for each statement execute function "${schema}".note()`).execute(db);
  }
  return {
    async take() {
      const { rows } = await sql<{ table_name: string }>`delete from ${sql.id(schema, 'writes')} returning table_name`.execute(db);
      return [...new Set(rows.map((r) => r.table_name))].sort();
    },
  };
}
