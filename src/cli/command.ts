/** The shape of an operator command and the context it runs in. */
import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import type { DB } from '../db/database.ts';

export interface CliContext {
  readonly config: Config;
  /** Migrations applied when the database was opened. */
  readonly appliedMigrations: readonly string[];
  /** Opens (and migrates) the configured database on first use. */
  database(): Promise<DB>;
  /**
   * The key material, checked against the database as a starting server
   * checks it: a command never writes client secrets or signing keys under
   * another encryption key than the deployment's.
   */
  keys(): Promise<KeyMaterial>;
}

export type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CliResult {
  /** What `--json` prints. */
  readonly json: unknown;
  /** What a person reads. */
  readonly text: string;
}

export interface CliCommand {
  /** Words that select it, e.g. `['user', 'add']`. */
  readonly words: readonly string[];
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  run(context: CliContext, values: OptionValues): Promise<CliResult>;
}

/** Bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function positiveIntegers(values: OptionValues, name: string): number[] {
  const raw = values[name];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((value) => {
    if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647) {
      throw new UsageError(`--${name} must be a positive whole number, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  });
}

export function requiredString(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function stringList(values: OptionValues, name: string): string[] {
  const raw = values[name];
  return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
}
