/**
 * Hot-path statements (SPEC §8): SQL text fixed when the module loads, so a
 * request pays neither for building and compiling a Kysely query nor, on
 * PostgreSQL, for parsing and planning it: each pooled connection prepares a
 * named statement once (PostgreSQL protocol §55.2.3, extended query) and
 * afterwards only binds and executes it. Runs through Kysely like every other
 * query, so transactions, PGlite and the outage handling apply unchanged.
 */
import { CompiledQuery } from 'kysely';
import type { Executor } from './executor.ts';

const namesByText = new Map<string, string>();
const textsByName = new Map<string, string>();

export interface Statement<Row> {
  readonly name: string;
  /** The rows for these parameters (`$1`, `$2`, … in the text). */
  rows(db: Executor, parameters: readonly unknown[]): Promise<Row[]>;
  /** Rows changed by an insert, update or delete. */
  changes(db: Executor, parameters: readonly unknown[]): Promise<number>;
}

/** Declares a statement; `name` must be unique (it names the prepared statement on every connection). */
export function statement<Row>(name: string, text: string): Statement<Row> {
  const taken = textsByName.get(name);
  if (taken !== undefined && taken !== text) throw new Error(`two statements are named ${name}`);
  textsByName.set(name, text);
  if (!namesByText.has(text)) namesByText.set(text, name);
  const execute = (db: Executor, parameters: readonly unknown[]) => db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]));
  return {
    name,
    rows: async (db, parameters) => (await execute(db, parameters)).rows,
    changes: async (db, parameters) => Number((await execute(db, parameters)).numAffectedRows ?? 0),
  };
}

/** The prepared-statement name of a declared statement's text, for the PostgreSQL driver. */
export function preparedStatementName(text: string): string | undefined {
  return namesByText.get(text);
}
