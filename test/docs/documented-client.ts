/**
 * A documented `npm run cli -- client add …` line run as the CLI runs it
 * (its own option parser and command), in this process on the test server's
 * database: the embedded database of a test admits no second process, so
 * the example's client is registered exactly as documented without one.
 */
import path from 'node:path';
import { expect } from 'vitest';
import { parseOptions } from '../../src/cli/arguments.ts';
import { clientAddCommand } from '../../src/cli/clients.commands.ts';
import type { CliContext } from '../../src/cli/command.ts';
import { NO_EVENT_LOG } from '../../src/ops/security-events.ts';
import type { AppUnderTest } from '../helpers/app.ts';

/** The block's commands, one a line: continuation lines joined. */
export function commandLines(text: string): string[] {
  return text.replace(/\\\n\s*/g, '').split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

/** A command line's words: spaces separate, '…' and "…" quote (enough for the documents' commands). */
export function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

const PREFIX = ['npm', 'run', 'cli', '--', 'client', 'add'];

/** Runs the `client add` command line on `t`'s database, in `cwd` (`$PWD`, files it names). Returns the printed lines. */
export async function addClientAsDocumented(t: AppUnderTest, line: string, cwd: string): Promise<string[]> {
  return [...(await runDocumentedClientAdd(t, line, cwd)).text];
}

/**
 * The same, for a line that asks for JSON (`npm run -s cli -- client add … --json`, the CLI's own options
 * `-s` and `--json` taken off as the CLI takes them): what `--json` prints.
 */
export async function addClientAsDocumentedJson(t: AppUnderTest, line: string, cwd: string): Promise<unknown> {
  expect(line).toMatch(/ --json$/);
  return (await runDocumentedClientAdd(t, line.replace(/^npm run -s /, 'npm run ').replace(/ --json$/, ''), cwd)).json;
}

async function runDocumentedClientAdd(t: AppUnderTest, line: string, cwd: string) {
  const words = shellWords(line.replaceAll('$PWD', cwd));
  expect(words.slice(0, PREFIX.length)).toEqual(PREFIX);
  const args = words.slice(PREFIX.length).map((word, index, all) => (all[index - 1] === '--jwks-file' ? path.resolve(cwd, word) : word));
  const context = { database: async () => t.db, keys: async () => t.keys, storedEvents: NO_EVENT_LOG } as unknown as CliContext;
  return clientAddCommand.run(context, parseOptions(clientAddCommand, args));
}
