/**
 * A database handle the test can switch off: while down, every use of its
 * Kysely instance (queries, statements, transactions, ping) fails with
 * DatabaseUnavailableError, as a refused or lost connection does — on PGlite
 * and PostgreSQL alike.
 */
import type { DatabaseHandle, DB } from '../../src/db/database.ts';
import { DatabaseUnavailableError } from '../../src/db/unavailable.ts';

export interface SwitchableDatabase {
  readonly handle: DatabaseHandle;
  fail(): void;
  recover(): void;
}

export function switchableDatabase(real: DatabaseHandle): SwitchableDatabase {
  let down = false;
  const refuse = () => {
    if (down) throw new DatabaseUnavailableError(new Error('connect ECONNREFUSED (simulated outage)'));
  };
  const db = new Proxy(real.db, {
    get(target, property) {
      refuse();
      const value: unknown = Reflect.get(target, property, target);
      // Kysely keeps its state in private fields: call its methods on the real instance.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as DB;
  return {
    handle: {
      db,
      kind: real.kind,
      ping: async () => { refuse(); await real.ping(); },
      close: () => real.close(),
    },
    fail: () => { down = true; },
    recover: () => { down = false; },
  };
}
