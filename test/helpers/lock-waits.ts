/**
 * Forcing one interleaving of two transactions on PostgreSQL: hold one open
 * until the other is seen waiting for a lock it holds (`pg_blocking_pids`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../../src/db/schema.ts';

/** The backend process id of the connection a transaction holds. */
export async function backendPid(trx: Transaction<Database>): Promise<number> {
  return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
}

/**
 * Waits until some connection waits for a lock the backend `pid` holds, or
 * until `other` (the request that should wait) has finished without waiting.
 */
export async function untilWaitingOn(db: Kysely<Database>, pid: number, other: Promise<unknown>): Promise<void> {
  let finished = false;
  void other.finally(() => { finished = true; });
  for (const deadline = Date.now() + 60_000; !finished; await sleep(20)) {
    const blocked = await sql<{ n: number }>`select count(*)::integer as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
    if (blocked.rows[0]!.n > 0) return;
    if (Date.now() > deadline) throw new Error('nothing came to wait on the held transaction');
  }
}

/** The backend process id of a connection waiting for a lock the backend `pid` holds, once there is one. */
export async function blockedBehind(db: Kysely<Database>, pid: number): Promise<number> {
  for (const deadline = Date.now() + 60_000; ; await sleep(20)) {
    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`.execute(db);
    if (rows[0]) return rows[0].pid;
    if (Date.now() > deadline) throw new Error('nothing came to wait on the held transaction');
  }
}

/**
 * Waits until some connection besides `by` waits for a lock one of `by` holds, or until `other` (the request
 * that should wait) has finished without waiting.
 */
export async function untilBlocked(db: Kysely<Database>, other: Promise<unknown>, by: readonly number[]): Promise<void> {
  let finished = false;
  void other.finally(() => { finished = true; });
  for (const deadline = Date.now() + 60_000; !finished; await sleep(20)) {
    const blocked = await sql<{ n: number }>`select count(*)::integer as n from pg_stat_activity
      where not (pid = any(${[...by]}::integer[])) and pg_blocking_pids(pid) && ${[...by]}::integer[]`.execute(db);
    if (blocked.rows[0]!.n > 0) return;
    if (Date.now() > deadline) throw new Error('nothing came to wait on the held transactions');
  }
}

/** How each side ended: 'done', or the error's SQLSTATE and message (40P01 for a deadlock). */
export async function outcomes(...work: Array<Promise<unknown>>): Promise<string[]> {
  return (await Promise.allSettled(work)).map((r) => r.status === 'fulfilled' ? 'done' : `${(r.reason as { code?: string }).code} ${(r.reason as Error).message}`);
}

/**
 * Runs `first` while a third transaction holds what `hold` locks, until `first` is seen waiting for it; then
 * `second`, until it is seen waiting for `first`; then ends the third transaction. How each ended.
 */
export async function whileHeld(db: Kysely<Database>, hold: RawBuilder<unknown>, first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<string[]> {
  let a: Promise<unknown> | undefined;
  let b: Promise<unknown> | undefined;
  await db.transaction().execute(async (holder) => {
    await hold.execute(holder);
    a = first();
    a.catch(() => {});
    const firstPid = await blockedBehind(db, await backendPid(holder));
    b = second();
    b.catch(() => {});
    await untilWaitingOn(db, firstPid, b);
  });
  return outcomes(a!, b!);
}

/**
 * The advisory lock of {@link gatedBeforeInsertInto}'s gate: advisory locks are the database's, and every
 * file of a PostgreSQL run has its own schema in one database, so the key is the schema's.
 */
const GATE = 'pg_advisory_xact_lock(hashtextextended(current_schema(), 731092))';

/**
 * Runs `first` with a gate before its insert into `table` (a trigger waiting for an advisory lock a third
 * transaction holds), so that it stops there, holding what it locked before; then `second`, until it is seen
 * waiting for `first`; then opens the gate.
 */
export function gatedBeforeInsertInto(db: Kysely<Database>, table: string, first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<string[]> {
  return gatedBefore(db, 'insert', table, first, second);
}

/** {@link gatedBeforeInsertInto} for an update of a row of `table` (the row then locked by `first`). */
export function gatedBeforeUpdateOf(db: Kysely<Database>, table: string, first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<string[]> {
  return gatedBefore(db, 'update', table, first, second);
}

async function gatedBefore(db: Kysely<Database>, event: 'insert' | 'update', table: string, first: () => Promise<unknown>, second: () => Promise<unknown>): Promise<string[]> {
  await sql.raw(`create function lock_order_gate() returns trigger language plpgsql as $$
    begin perform ${GATE}; return new; end $$`).execute(db);
  await sql.raw(`create trigger lock_order_gate before ${event} on ${table} for each row execute function lock_order_gate()`).execute(db);
  try {
    return await whileHeld(db, sql.raw(`select ${GATE}`), first, second);
  } finally {
    await sql.raw(`drop trigger lock_order_gate on ${table}`).execute(db);
    await sql.raw('drop function lock_order_gate()').execute(db);
  }
}
