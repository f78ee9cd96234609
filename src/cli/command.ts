/** The shape of an operator command, its options and the context it runs in. */
import type { Config } from '../config.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import type { DB } from '../db/database.ts';
import type { EventLog } from '../ops/security-events.ts';

export interface CliContext {
  /** The configuration, read from the environment on first use (ConfigError when invalid). */
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
  /** A password from standard input, or typed at a prompt without echo. */
  readPassword(prompt: string): Promise<string>;
  /** A token or secret (`label`) from standard input, or typed once at a prompt without echo; `example` names a variable for the hint. */
  readSecret(label: string, example: string): Promise<string>;
  /** The same where no answer is one (''): `question` is the prompt on a terminal. */
  readSecretLine(question: string): Promise<string>;
  /** All of standard input, as text (a file piped in). */
  readStandardInput(): Promise<string>;
  /** The environment the configuration is read from (the process's over `.env`), for a command's own variables. */
  readonly environment: Readonly<Record<string, string | undefined>>;
  /** Progress for a person: stdout, or stderr when stdout carries `--json`. */
  say(line: string): void;
  /** A warning for a person: always stderr, whatever the output. */
  warn(line: string): void;
  /** Security events (docs/security-events.md): stored in the audit log; JSON lines on stderr with `--json`, none in text output, which says the same. */
  readonly events: EventLog;
  /** Security events only stored in the audit log, never printed: the client commands', whose output is their record. */
  readonly storedEvents: EventLog;
}

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** May be given several times; the values are collected in order. */
  readonly multiple?: boolean;
  readonly required?: boolean;
  /** Placeholder in the usage text, e.g. `ID`. */
  readonly value?: string;
  readonly help: string;
  /** The service's field this option fills, so that a refused field is reported under the option's name. */
  readonly field?: string;
  /** Taken only to be refused with the reason (`oauth try --secret`): listed in the help, not in the usage line. */
  readonly refused?: boolean;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A required word after the command's own, e.g. `db backup FILE`: stored in the values under `name`. */
export interface ArgumentSpec {
  readonly name: string;
  /** Placeholder in the usage text, e.g. `FILE`. */
  readonly value: string;
  readonly help: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CliResult {
  /** What `--json` prints. */
  readonly json: unknown;
  /**
   * What a person reads, line by line. Each line is printed with its control
   * and bidirectional formatting characters escaped (a line feed too), so
   * stored text can neither break a line nor command or reorder the terminal
   * (text/control-characters.ts).
   */
  readonly text: readonly string[];
}

export interface CliCommand {
  /** Words that select it, e.g. `['user', 'add']`. */
  readonly words: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** Further lines for `--help`. */
  readonly details?: readonly string[];
  readonly options: OptionSpecs;
  /** Arguments after the words, in order; all required. */
  readonly arguments?: readonly ArgumentSpec[];
  run(context: CliContext, values: OptionValues): Promise<CliResult>;
}

/** Bad command-line input: printed with the usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Input the command refuses (an unknown id, a public client's secret): exit code 1. */
export class RefusedInput extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedInput';
  }
}

export function positiveIntegers(values: OptionValues, name: string): number[] {
  return stringList(values, name).map((value) => {
    if (!/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647) {
      throw new UsageError(`--${name} must be a positive whole number, got ${JSON.stringify(value)}`);
    }
    return Number(value);
  });
}

export function optionalInteger(values: OptionValues, name: string): number | undefined {
  return positiveIntegers(values, name)[0];
}

export function optionalString(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** An email address option as typed or pasted: surrounding whitespace is not part of it (as on the login form). */
export function optionalEmail(values: OptionValues, name: string): string | undefined {
  return optionalString(values, name)?.trim();
}

export function stringList(values: OptionValues, name: string): string[] {
  const raw = values[name];
  return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string');
}

/** Exactly one of the options that name the object, e.g. `--id` or `--email`. */
export function oneOf(values: OptionValues, ...names: string[]): string {
  const given = names.filter((n) => values[n] !== undefined);
  if (given.length !== 1) throw new UsageError(`give exactly one of ${names.map((n) => `--${n}`).join(', ')}`);
  return given[0]!;
}
