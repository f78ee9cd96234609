import { sql, type Transaction } from 'kysely';
import type { Executor } from './executor.ts';
import type { Database } from './schema.ts';

/**
 * Runs `work` in a transaction: the caller's own when it passes one (so a
 * service can be part of a larger unit, such as the demo dataset), else a new one.
 */
export function inTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

/**
 * `pg_advisory_xact_lock`: waits for, then holds until the transaction ends, the lock named by `key`
 * in the current schema. Advisory locks belong to the whole database; naming the schema in the lock
 * keeps deployments (and test runs) on different schemas of one database from waiting on each other.
 */
export async function lockForTransaction(trx: Transaction<any>, key: number): Promise<void> {
  await lockNamed(trx, '', key);
}

/**
 * {@link lockForTransaction} for one thing of many: the lock named by `name` (what is counted or
 * replaced, such as `upload-count`) and `id` (whose: a member's id), so that requests about one
 * member wait for each other and requests about others do not.
 */
export async function lockForTransactionOf(trx: Transaction<any>, name: string, id: number): Promise<void> {
  await lockNamed(trx, `/${name}`, id);
}

async function lockNamed(trx: Transaction<any>, suffix: string, key: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || ${suffix}, ${key}))`.execute(trx);
}

/**
 * {@link lockForTransactionOf} inside one statement's SQL: the call that takes the lock named `name` for
 * the id the SQL expression `id` gives, held until the statement's transaction ends. `name` is a constant
 * of the caller's (letters and dashes), never input.
 */
export function lockOfSql(name: string, id: string): string {
  if (!/^[a-z-]+$/.test(name)) throw new Error(`lock names are letters and dashes: ${name}`);
  return `pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || '/${name}', ${id}))`;
}
