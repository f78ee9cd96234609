/** `client list | show | add | update | delete | rotate-secret` (SPEC §3, §5.1). */
import type { DB } from '../db/database.ts';
import {
  createClient, deleteClient, findClient, listClients, regenerateClientSecret, updateClient, type Client,
} from '../oauth/clients/clients.service.ts';
import { CLIENT_SETTING_OPTIONS, clientJson, describeClient, EMPTY_SETTINGS, readClientSettings, settingsOf } from './client-flags.ts';
import { UsageError, type CliCommand, type OptionSpec } from './command.ts';
import { withActor } from '../ops/security-events.ts';
import { ClientNotFound } from '../oauth/clients/client-errors.ts';

const CLIENT_ID: OptionSpec = { type: 'string', required: true, value: 'ID', field: 'clientId', help: 'the client id' };
const SECRET_NOTE = 'Client secret (shown only now, store it safely)';

/** `--public` or `--confidential` beside a `--token-endpoint-auth-method` that says the opposite. */
function refuseContradiction(values: Record<string, unknown>): void {
  const method = values['token-endpoint-auth-method'];
  if (method === undefined) return;
  if (values.public === true && method !== 'none') {
    throw new UsageError(`--public contradicts --token-endpoint-auth-method ${String(method)}: a public client authenticates with none`);
  }
  if (values.confidential === true && method === 'none') {
    throw new UsageError('--confidential contradicts --token-endpoint-auth-method none: a confidential client has a secret or keys');
  }
}

/** The client, or ClientNotFound (the CLI's message and exit code for an unknown client id). */
async function requireClient(db: DB, clientId: string): Promise<Client> {
  const client = await findClient(db, clientId);
  if (!client) throw new ClientNotFound(clientId);
  return client;
}

export const clientListCommand: CliCommand = {
  words: ['client', 'list'],
  summary: 'list the registered OAuth clients',
  options: {},
  async run(context) {
    const clients = await listClients(await context.database());
    return {
      json: clients.map(clientJson),
      text: clients.length === 0 ? ['No OAuth clients.'] : clients.map((c) => `${c.clientId.padEnd(24)} ${c.confidential ? 'confidential' : 'public      '}  ${c.name}`),
    };
  },
};

export const clientShowCommand: CliCommand = {
  words: ['client', 'show'],
  summary: 'show one OAuth client with its settings',
  options: { 'client-id': CLIENT_ID },
  async run(context, values) {
    const client = await requireClient(await context.database(), values['client-id'] as string);
    return { json: clientJson(client), text: describeClient(client) };
  },
};

export const clientAddCommand: CliCommand = {
  words: ['client', 'add'],
  summary: 'register an OAuth client; prints a confidential client\'s secret once',
  options: {
    'client-id': { ...CLIENT_ID, help: 'the new client id (letters, digits, ".", "_", "-")' },
    ...CLIENT_SETTING_OPTIONS,
    name: { ...CLIENT_SETTING_OPTIONS.name!, required: true },
    'redirect-uri': { ...CLIENT_SETTING_OPTIONS['redirect-uri']!, required: true },
    public: { type: 'boolean', field: 'confidential', help: 'a browser or mobile app without a secret (PKCE only)' },
  },
  async run(context, values) {
    refuseContradiction(values);
    const settings = { ...readClientSettings(values, EMPTY_SETTINGS), confidential: values.public !== true };
    const keys = await context.keys();
    const db = await context.database();
    const { clientId, secret } = await createClient(db, keys, { clientId: values['client-id'] as string, ...settings }, undefined, withActor(context.storedEvents, null));
    // As stored: the authentication method decides (`none` is public, any other confidential).
    const { confidential } = await requireClient(db, clientId);
    const lines = [`Client ${clientId} created (${confidential ? 'confidential' : 'public'}).`];
    if (secret !== null) lines.push(`${SECRET_NOTE}: ${secret}`);
    return { json: { clientId, confidential, secret }, text: lines };
  },
};

export const clientUpdateCommand: CliCommand = {
  words: ['client', 'update'],
  summary: 'change a client\'s settings; a list option replaces the whole list',
  details: ['Options not given keep their value. Turning a public client confidential prints its new secret once.'],
  options: {
    'client-id': CLIENT_ID,
    ...CLIENT_SETTING_OPTIONS,
    public: { type: 'boolean', field: 'confidential', help: 'make it a public client (its secret is dropped)' },
    confidential: { type: 'boolean', help: 'make it a confidential client (a new secret is printed once)' },
  },
  async run(context, values) {
    if (values.public && values.confidential) throw new UsageError('give either --public or --confidential, not both');
    refuseContradiction(values);
    const clientId = values['client-id'] as string;
    const db = await context.database();
    const settings = readClientSettings(values, settingsOf(await requireClient(db, clientId)));
    if (values.public || values.confidential) {
      settings.confidential = values.confidential === true;
      // The method follows --public/--confidential unless given too.
      if (values['token-endpoint-auth-method'] === undefined) delete settings.tokenEndpointAuthMethod;
    }
    const { secret, changed } = await updateClient(db, await context.keys(), clientId, settings, new Date(), withActor(context.storedEvents, null));
    const client = await requireClient(db, clientId);
    const lines = [changed ? `Client ${clientId} updated.` : `Client ${clientId} unchanged: it has these settings already.`, ...describeClient(client)];
    if (secret !== null) lines.push(`${SECRET_NOTE}: ${secret}`);
    return { json: { ...clientJson(client), secret, changed }, text: lines };
  },
};

export const clientDeleteCommand: CliCommand = {
  words: ['client', 'delete'],
  summary: 'delete a client with its consents and grants: its tokens stop working at once',
  options: { 'client-id': CLIENT_ID },
  async run(context, values) {
    const clientId = values['client-id'] as string;
    await deleteClient(await context.database(), clientId, withActor(context.storedEvents, null));
    return { json: { clientId, deleted: true }, text: [`Client ${clientId} deleted.`] };
  },
};

export const clientRotateSecretCommand: CliCommand = {
  words: ['client', 'rotate-secret'],
  summary: 'give a confidential client a new secret, printed once; the old one stops working at once',
  options: { 'client-id': CLIENT_ID },
  async run(context, values) {
    const clientId = values['client-id'] as string;
    const keys = await context.keys();
    const secret = await regenerateClientSecret(await context.database(), keys, clientId, new Date(), withActor(context.storedEvents, null));
    return { json: { clientId, secret }, text: [`New secret for ${clientId}.`, `${SECRET_NOTE}: ${secret}`] };
  },
};
