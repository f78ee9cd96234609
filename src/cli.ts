/**
 * Operator CLI (SPEC §3): `foodsharing <command> [options] [--json]` (the
 * package's `bin`; `npm run -s cli -- …` in a checkout). Works on the same
 * DATA_DIR / DATABASE_URL as the server; on the embedded database it refuses
 * to run while the server holds it. Exit codes: 0 done, 1 refused input or a
 * failure, 2 usage. It never prints a control or bidirectional formatting
 * character as it is (text/control-characters.ts): a stored name cannot
 * command or reorder the operator's terminal.
 */
import { commandHelp, GLOBAL_OPTIONS, parseOptions, programHelp, synopsis } from './cli/arguments.ts';
import { COMMANDS } from './cli/commands.ts';
import { UsageError, type CliCommand, type CliContext } from './cli/command.ts';
import { readPassword, readSecret, readSecretLine, type PasswordSource } from './cli/password-input.ts';
import { loadConfig, readProcessEnvironment, type Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { openConfiguredDatabase } from './db/target.ts';
import { InvalidInput, type FieldError } from './invalid-input.ts';
import { checkEncryptionKey } from './oauth/keys/key-check.ts';
import { loadKeyMaterial, type KeyMaterial } from './oauth/keys/key-material.ts';
import { EventRecorder } from './ops/audit/event-recorder.ts';
import { jsonLineEventLog, NO_EVENT_LOG, recordingEventLog } from './ops/security-events.ts';
import { escapeForTerminal } from './text/control-characters.ts';

export { COMMANDS };
export const PROGRAM = 'foodsharing';

export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  /** The environment; by default the process's, over the `.env` file in the working directory. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where passwords come from; standard input by default. */
  input?: PasswordSource;
  /**
   * An open database to run the command on, instead of opening the configured
   * one and closing it afterwards: for running many command lines in one
   * process (the tests). Pending migrations are still applied to it.
   */
  database?: DatabaseHandle;
}

/** Runs one command line; returns the process exit code. */
export async function runCli(argv: readonly string[], given: CliIo = { out: process.stdout, err: process.stderr }): Promise<number> {
  const io = escapingIo(given);
  const json = argv.includes('--json');
  const help = argv.includes('--help') || argv.includes('-h');
  const args = argv.filter((a) => a !== '--json' && a !== '--help' && a !== '-h');
  const command = findCommand(args);
  const report = reporter(io, json, command);

  if (!command) {
    if (args.length === 0 && help) return io.out.write(`${programHelp(COMMANDS, PROGRAM)}\n`), 0;
    if (args[0] === 'help') return io.out.write(`${helpFor(args.slice(1))}\n`), 0;
    const group = args.length === 0 ? [] : COMMANDS.filter((c) => c.words.length > 1 && c.words[0] === args[0]);
    const message = args.length === 0 ? 'no command given'
      : group.length > 0 && args.length === 1 ? `"${args[0]}" needs a subcommand: ${group.map((c) => c.words.slice(1).join(' ')).join(', ')}`
        : `unknown command "${args.join(' ')}"`;
    return report(2, new UsageError(`${message}\n${programHelp(COMMANDS, PROGRAM)}`));
  }
  if (help) return io.out.write(`${commandHelp(command, PROGRAM)}\n`), 0;

  let handle: DatabaseHandle | undefined;
  let context: ReturnType<typeof createContext> | undefined;
  try {
    const values = parseOptions(command, args.slice(command.words.length));
    context = createContext(io, json, (h) => { handle = h; });
    const result = await command.run(context, values);
    io.out.write(`${json ? JSON.stringify(result.json, null, 2) : result.text.map((line) => escapeForTerminal(line, 'escape')).join('\n')}\n`);
    return 0;
  } catch (error) {
    return report(error instanceof UsageError ? 2 : 1, error);
  } finally {
    await context?.eventsStored();
    await handle?.close();
  }
}

/**
 * Everything written escapes control and bidirectional formatting characters
 * but the line feed: text stays readable, and JSON stays valid (those
 * characters occur only inside its strings, where `\uXXXX` means the same).
 */
function escapingIo(io: CliIo): CliIo {
  const escaping = (stream: CliIo['out']) => ({ write: (text: string) => stream.write(escapeForTerminal(text)) });
  return { ...io, out: escaping(io.out), err: escaping(io.err) };
}

function findCommand(args: readonly string[]): CliCommand | undefined {
  return COMMANDS.filter((c) => c.words.every((word, i) => args[i] === word)).sort((a, b) => b.words.length - a.words.length)[0];
}

function helpFor(words: readonly string[]): string {
  const command = findCommand(words);
  return command ? commandHelp(command, PROGRAM) : programHelp(COMMANDS, PROGRAM);
}

/** The context a command runs in; `eventsStored()` waits for its security events to reach the audit log. */
function createContext(io: CliIo, json: boolean, opened: (handle: DatabaseHandle) => void): CliContext & { eventsStored(): Promise<void> } {
  let config: Config | undefined;
  let environment: Readonly<Record<string, string | undefined>> | undefined;
  let db: Promise<DatabaseHandle['db']> | undefined;
  let keys: Promise<KeyMaterial> | undefined;
  const applied: string[] = [];
  const recorder = new EventRecorder(() => context.database(), () => new Date(), (error) => {
    io.err.write(`security events not stored in the audit log: ${error instanceof Error ? error.message : String(error)}\n`);
  });
  const context: CliContext & { eventsStored(): Promise<void> } = {
    get config() {
      config ??= loadConfig(context.environment);
      return config;
    },
    get environment() {
      environment ??= io.env ?? readProcessEnvironment().env;
      return environment;
    },
    appliedMigrations: applied,
    // A person reads what the command printed, which says the same; machines (`--json`) also get the event lines.
    // Stored in the audit log either way (ops/audit/).
    events: recordingEventLog(json ? jsonLineEventLog(io.err) : NO_EVENT_LOG, (event) => recorder.record(event)),
    storedEvents: recordingEventLog(NO_EVENT_LOG, (event) => recorder.record(event)),
    eventsStored: () => recorder.settled(),
    database() {
      db ??= (async () => {
        const handle = io.database ?? await openConfiguredDatabase(context.config);
        if (!io.database) opened(handle);
        applied.push(...await migrate(handle.db));
        return handle.db;
      })();
      return db;
    },
    keys() {
      keys ??= (async () => {
        const material = await loadKeyMaterial(context.config);
        await checkEncryptionKey(await context.database(), context.config, material);
        return material;
      })();
      return keys;
    },
    readPassword: (label) => readPassword(io.input ?? process.stdin, (text) => io.err.write(text), label),
    readSecret: (label, example) => readSecret(io.input ?? process.stdin, (text) => io.err.write(text), label, example),
    readSecretLine: (question) => readSecretLine(io.input ?? process.stdin, (text) => io.err.write(text), question),
    async readStandardInput() {
      let text = '';
      for await (const chunk of io.input ?? process.stdin) text += String(chunk);
      return text;
    },
    say: (line) => (json ? io.err : io.out).write(`${line}\n`),
    warn: (line) => io.err.write(`warning: ${line}\n`),
  };
  return context;
}

/** Writes an error (JSON on stdout with --json, text on stderr otherwise) and returns the exit code. */
function reporter(io: CliIo, json: boolean, command: CliCommand | undefined) {
  return (code: number, error: unknown): number => {
    const message = error instanceof Error ? error.message : String(error);
    const fields = error instanceof InvalidInput ? (error.errors ?? []).map((e) => ({ ...e, ...optionOf(command, e) })) : [];
    const usage = error instanceof UsageError && command ? `usage: ${PROGRAM} ${synopsis(command)} [--json]` : undefined;
    if (json) {
      io.out.write(`${JSON.stringify({ error: message, ...(fields.length > 0 ? { errors: fields } : {}), ...(usage ? { usage } : {}) })}\n`);
    } else {
      const lines = fields.map((f) => escapeForTerminal(`  ${f.option ?? f.field}: ${f.message}`, 'escape'));
      io.err.write(`error: ${[message, ...lines, ...(usage ? [usage, `(${PROGRAM} ${command!.words.join(' ')} --help lists the options)`] : [])].join('\n')}\n`);
    }
    return code;
  };
}

/** The option that fills a refused field, so the message names a flag that exists. */
function optionOf(command: CliCommand | undefined, error: FieldError): { option?: string } {
  const options = { ...command?.options, ...GLOBAL_OPTIONS };
  const kebab = error.field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const name = Object.keys(options).find((n) => options[n]!.field === error.field) ?? (kebab in options ? kebab : undefined);
  return name ? { option: `--${name}` } : {};
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await runCli(process.argv.slice(2));
}
