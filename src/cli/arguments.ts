/**
 * The command line's grammar: `<words> [--option value]... [--json] [--help]`.
 * node:util parseArgs tokenises; the checks here turn every mistake into a
 * message that names the command's real options (never the parser's own text).
 */
import { parseArgs } from 'node:util';
import { UsageError, type CliCommand, type OptionSpec, type OptionValues } from './command.ts';

/** Options every command takes. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  json: { type: 'boolean', help: 'machine-readable output on stdout (errors too), nothing else on stdout' },
  help: { type: 'boolean', help: 'show this help and exit' },
};

export function parseOptions(command: CliCommand, args: readonly string[]): OptionValues {
  const options = Object.fromEntries(Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type, multiple: spec.multiple === true }]));
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const values: OptionValues = {};
  const expected = [...command.arguments ?? []];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      const argument = expected.shift();
      if (!argument) throw new UsageError(`unexpected argument ${JSON.stringify(token.value)}`);
      values[argument.name] = token.value;
      continue;
    }
    if (token.kind !== 'option') continue;
    const name = token.rawName.startsWith('--') ? token.name : token.rawName;
    const spec = command.options[name];
    if (!spec) throw new UsageError(`unknown option ${JSON.stringify(token.rawName)}`);
    values[name] = readValue(name, spec, token, values[name]);
  }
  if (expected.length > 0) throw new UsageError(`${expected[0]!.value} is required`);
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.required && (values[name] === undefined || String(values[name]).trim() === '')) throw new UsageError(`--${name} is required`);
  }
  return values;
}

function readValue(name: string, spec: OptionSpec, token: { value?: string; inlineValue?: boolean }, previous: OptionValues[string]): OptionValues[string] {
  if (spec.type === 'boolean') {
    if (token.value !== undefined) throw new UsageError(`--${name} takes no value`);
    return true;
  }
  // parseArgs (non-strict) takes the next word even when it is another option.
  if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
    throw new UsageError(`--${name} needs a value (--${name} ${spec.value ?? 'VALUE'})`);
  }
  if (spec.multiple) return [...(Array.isArray(previous) ? previous : []), token.value];
  if (previous !== undefined) throw new UsageError(`--${name} is given twice`);
  return token.value;
}

function optionLabel(name: string, spec: OptionSpec): string {
  return `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}${spec.multiple ? '...' : ''}`;
}

/** `client add --client-id ID --name NAME [--public] ...` */
export function synopsis(command: CliCommand): string {
  const options = Object.entries(command.options).filter(([, spec]) => !spec.refused)
    .map(([name, spec]) => (spec.required ? optionLabel(name, spec) : `[${optionLabel(name, spec)}]`));
  return [...command.words, ...(command.arguments ?? []).map((a) => a.value), ...options].join(' ');
}

export function commandHelp(command: CliCommand, program: string): string {
  const rows = [
    ...(command.arguments ?? []).map((a) => [a.value, a.help] as const),
    ...Object.entries({ ...command.options, ...GLOBAL_OPTIONS }).map(([name, spec]) => [optionLabel(name, spec), spec.help] as const),
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return [
    `Usage: ${program} ${synopsis(command)} [--json]`,
    '',
    command.summary,
    ...(command.details ?? []),
    '',
    command.arguments?.length ? 'Arguments and options:' : 'Options:',
    ...rows.map(([label, help]) => `  ${label.padEnd(width)}${help}`),
  ].join('\n');
}

export function programHelp(commands: readonly CliCommand[], program: string): string {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length)) + 2;
  return [
    `Usage: ${program} <command> [options] [--json]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.words.join(' ').padEnd(width)}${c.summary}`),
    '',
    `Every command takes --help (its options) and --json (machine-readable output on stdout).`,
    'Exit codes: 0 done, 1 input refused or the command failed (the message says why), 2 usage error.',
  ].join('\n');
}
