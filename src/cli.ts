/**
 * Operator CLI (SPEC §3): `npm run cli -- <command> [options] [--json]`, also
 * the package's `bin`. Works on the same DATA_DIR / DATABASE_URL as the server;
 * on the embedded database it refuses to run while the server holds it.
 */
import { parseArgs } from 'node:util';
import { demoCommand, migrateCommand, regionAddCommand, userAddCommand } from './cli/accounts.commands.ts';
import { UsageError, type CliCommand, type CliContext } from './cli/command.ts';
import { clientAddCommand, keysRotateCommand } from './cli/oauth.commands.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/database.ts';
import { DataDirBusyError } from './db/data-dir-lock.ts';
import { migrate } from './db/migrate.ts';
import { databaseTarget } from './db/target.ts';
import { DatabaseNotEmptyError, DemoRefusedInProduction } from './demo/demo-data.ts';
import { InvalidInput } from './invalid-input.ts';
import { checkEncryptionKey, EncryptionKeyMismatchError } from './oauth/keys/key-check.ts';
import { loadKeyMaterial, type KeyMaterial } from './oauth/keys/key-material.ts';

export const COMMANDS: CliCommand[] = [migrateCommand, regionAddCommand, userAddCommand, clientAddCommand, keysRotateCommand, demoCommand];

function usage(): string {
  return ['Usage: npm run cli -- <command> [options] [--json]', '', 'Commands:',
    ...COMMANDS.map((c) => `  ${c.usage}`)].join('\n');
}

export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

/** Runs one command line; returns the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo = { out: process.stdout, err: process.stderr, env: process.env }): Promise<number> {
  const { out, err } = io;
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  const fail = (code: number, message: string, details?: unknown) => {
    if (json) out.write(`${JSON.stringify({ error: message, ...(details ? { errors: details } : {}) })}\n`);
    else err.write(`error: ${message}\n${Array.isArray(details) ? details.map((d: { field: string; message: string }) => `  --${kebab(d.field)}: ${d.message}\n`).join('') : ''}`);
    return code;
  };

  if (args.length === 0 || args[0] === '--help' || args[0] === 'help') {
    out.write(`${usage()}\n`);
    return args.length === 0 ? 2 : 0;
  }
  const command = COMMANDS
    .filter((c) => c.words.every((word, i) => args[i] === word))
    .sort((a, b) => b.words.length - a.words.length)[0];
  if (!command) return fail(2, `unknown command "${args.join(' ')}"\n${usage()}`);

  let handle: DatabaseHandle | undefined;
  try {
    const { values, positionals } = parseArgs({ args: args.slice(command.words.length), options: command.options, strict: true, allowPositionals: true });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const config = loadConfig(io.env);
    const applied: string[] = [];
    let checkedKeys: KeyMaterial | undefined;
    const context: CliContext = {
      config,
      appliedMigrations: applied,
      async database() {
        if (!handle) {
          handle = await openDatabase(databaseTarget(config));
          applied.push(...await migrate(handle.db));
        }
        return handle.db;
      },
      async keys() {
        if (!checkedKeys) {
          const keys = await loadKeyMaterial(config);
          await checkEncryptionKey(await context.database(), config, keys);
          checkedKeys = keys;
        }
        return checkedKeys;
      },
    };
    const result = await command.run(context, values);
    out.write(json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return fail(2, `${(error as Error).message}\nusage: ${command.usage}`);
    }
    if (error instanceof InvalidInput) return fail(1, error.message, error.errors);
    if (error instanceof ConfigError) return fail(1, error.message);
    if (error instanceof DataDirBusyError || error instanceof DatabaseNotEmptyError || error instanceof DemoRefusedInProduction
      || error instanceof EncryptionKeyMismatchError) {
      return fail(1, error.message);
    }
    return fail(1, error instanceof Error ? error.message : String(error));
  } finally {
    await handle?.close();
  }
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await runCli(process.argv.slice(2));
}
