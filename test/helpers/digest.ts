/** A digest of every row of every table: equal before and after means nothing was written. */
import { sql } from 'kysely';
import type { DB } from '../../src/db/database.ts';

export async function databaseDigest(db: DB): Promise<string> {
  const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ digest: string | null; n: number }>`select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as digest,
      count(*)::integer as n from ${sql.table(name)} x`.execute(db);
    parts.push(`${name}:${rows[0]!.n}:${rows[0]!.digest}`);
  }
  return parts.join('\n');
}
