/**
 * Forcing one interleaving of two transactions on PostgreSQL: hold one open
 * until the other is seen waiting for a lock it holds (`pg_blocking_pids`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
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
