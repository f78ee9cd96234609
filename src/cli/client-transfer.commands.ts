/** `client export | import`: clients' settings as JSON, between deployments or into version control. */
import { readFile } from 'node:fs/promises';
import { exportClients, importClients, readExportedClients } from '../oauth/clients/client-transfer.ts';
import { RefusedInput, type CliCommand, type CliContext } from './command.ts';
import { withActor } from '../ops/security-events.ts';

export const clientExportCommand: CliCommand = {
  words: ['client', 'export'],
  summary: 'print every client\'s settings as a JSON array, without secrets (for client import)',
  details: ['The fields of client show --json but the dates; secrets and their digests are never exported.',
    'Example: foodsharing client export > clients.json'],
  options: {},
  async run(context) {
    const clients = await exportClients(await context.database());
    return { json: clients, text: JSON.stringify(clients, null, 2).split('\n') };
  },
};

export const clientImportCommand: CliCommand = {
  words: ['client', 'import'],
  summary: 'create or update clients from a file client export wrote; reports what changed',
  details: [
    'Missing clients are created (a confidential one gets a new secret, printed once), clients whose settings',
    'differ are updated, the others left alone: importing the same file again changes nothing. Clients not in the',
    'file are kept. Every entry is checked before anything is written, and the import is one transaction.',
  ],
  arguments: [{ name: 'file', value: 'FILE', help: 'the JSON file, or - for standard input' }],
  options: {},
  async run(context, values) {
    const entries = readExportedClients(parseJson(await readSource(context, values.file as string)));
    const keys = await context.keys();
    const report = await importClients(await context.database(), keys, entries, new Date(), withActor(context.storedEvents, null));
    const secretLine = (secret: string) => `          Client secret (shown only now, store it safely): ${secret}`;
    const created = report.created.flatMap((c) => [
      `created   ${c.clientId} (${c.confidential ? 'confidential' : 'public'})`,
      ...(c.secret === null ? [] : [secretLine(c.secret)]),
    ]);
    // A client the file turned to a secret method has a new secret, shown once as on creation.
    const updated = report.updated.flatMap((id) => [
      `updated   ${id}`, ...report.newSecrets.filter((n) => n.clientId === id).map((n) => secretLine(n.secret)),
    ]);
    return {
      json: report,
      text: [
        ...created, ...updated, ...report.unchanged.map((id) => `unchanged ${id}`),
        `${report.created.length} created, ${report.updated.length} updated, ${report.unchanged.length} unchanged.`,
      ],
    };
  },
};

async function readSource(context: CliContext, file: string): Promise<string> {
  if (file === '-') return context.readStandardInput();
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new RefusedInput(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RefusedInput(`the file is not JSON: ${(error as Error).message}`);
  }
}
