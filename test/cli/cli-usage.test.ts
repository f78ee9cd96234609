/** The command line's grammar: --help for every command, usage errors naming the real options, exit codes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli.ts';
import { makeDataDir, runBin, runInProcess } from './cli-helpers.ts';

let dataDir: string;
let remove: () => Promise<void>;
beforeAll(async () => { ({ dataDir, remove } = await makeDataDir()); });
afterAll(() => remove());

const cli = (...argv: string[]) => runInProcess(dataDir, argv);

describe('--help', () => {
  it('the program help lists every command and the exit codes, on stdout with exit 0 (through the bin)', async () => {
    const result = await runBin(dataDir, ['--help']);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^Usage: foodsharing <command> \[options\] \[--json\]\n\nCommands:\n {2}migrate /);
    for (const command of COMMANDS) expect(result.out).toContain(`\n  ${command.words.join(' ')} `);
    expect(result.out).toContain('Exit codes: 0 done, 1 input refused or the command failed (the message says why), 2 usage error.');
    expect((await cli('help')).out).toBe(result.out);
  });

  it('every command prints its usage and options with --help and exits 0, touching nothing', async () => {
    for (const command of COMMANDS) {
      const result = await cli(...command.words, '--help');
      expect(result.code, command.words.join(' ')).toBe(0);
      expect(result.err).toBe('');
      expect(result.out).toMatch(new RegExp(`^Usage: foodsharing ${command.words.join(' ')}( |\\n)`));
      for (const name of Object.keys(command.options)) expect(result.out).toContain(`\n  --${name}`);
      expect(result.out).toContain('\n  --json');
      expect((await cli('help', ...command.words)).out).toBe(result.out);
    }
  });

  it('region add --help through the bin: its usage, not the parser\'s error', async () => {
    const result = await runBin(dataDir, ['region', 'add', '--help']);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^Usage: foodsharing region add --name N \[--parent ID\] \[--type TYPE\] \[--json\]\n/);
  });
});

describe('usage errors exit 2 with a message naming the command\'s real options', () => {
  it('an unknown option, a missing value, a stray argument, a repeated option, a value on a switch', async () => {
    const cases: Array<[string[], string]> = [
      [['region', 'add', '--bogus'], 'unknown option "--bogus"'],
      [['region', 'add', '--name'], '--name needs a value (--name N)'],
      [['region', 'add', '--name', '--parent', '1'], '--name needs a value (--name N)'],
      [['region', 'add', 'Hamburg'], 'unexpected argument "Hamburg"'],
      [['region', 'add', '--name', 'A', '--name', 'B'], '--name is given twice'],
      [['client', 'add', '--client-id', 'x', '--name', 'X', '--redirect-uri', 'https://x.example/cb', '--public=yes'], '--public takes no value'],
      [['client', 'show'], '--client-id is required'],
    ];
    for (const [argv, message] of cases) {
      const result = await cli(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toContain(`error: ${message}\nusage: foodsharing ${argv[0]} ${argv[1]} `);
      expect(result.err).not.toMatch(/ERR_PARSE_ARGS|To specify a positional argument/);
      expect(result.out).toBe('');
    }
  });

  it('with --json the error is JSON on stdout, with the usage', async () => {
    const result = await cli('region', 'add', '--bogus', '--json');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.out)).toEqual({ error: 'unknown option "--bogus"', usage: 'usage: foodsharing region add --name N [--parent ID] [--type TYPE] [--json]' });
    expect(result.err).toBe('');
  });

  it('an unknown or missing command prints the command list and exits 2 (through the bin)', async () => {
    const result = await runBin(dataDir, ['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^error: unknown command "frobnicate"\nUsage: foodsharing <command>/);
    expect(result.out).toBe('');
    expect((await cli()).code).toBe(2);
    // A group's name alone: what may follow it.
    expect((await cli('client')).err).toMatch(/^error: "client" needs a subcommand: list, show, add, update, delete, rotate-secret, export, import\nUsage: foodsharing <command>/);
    expect((await cli('user')).err).toMatch(/^error: "user" needs a subcommand: list, show, add, set-password, disable, enable, delete, reset-second-factor\n/);
    expect((await cli('client', 'frob')).err).toContain('unknown command "client frob"');
  });
});
