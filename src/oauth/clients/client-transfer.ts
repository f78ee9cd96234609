/**
 * Clients' settings moved between deployments (CLI `client export | import`):
 * the fields of `client show --json` but the dates, never a secret or its
 * digest. An import creates the clients missing (a confidential one gets a new
 * secret, returned once), updates those whose settings differ, and leaves the
 * rest untouched: importing the same file again changes nothing. Every entry is
 * checked before anything is written.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { DB } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { InvalidInput, type FieldError } from '../../invalid-input.ts';
import { deferredEventLog, NO_EVENT_LOG, type EventLog } from '../../ops/security-events.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { CLIENT_ID_PATTERN } from './client-id.ts';
import { validateSettings } from './client-settings.ts';
import { createClient, findClient, listClients, updateClient, type Client } from './clients.service.ts';

const Strings = Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 100 });

export const ExportedClient = Type.Object({
  clientId: Type.String({ maxLength: 100 }),
  name: Type.String({ maxLength: 1000 }),
  confidential: Type.Boolean(),
  redirectUris: Strings,
  scopes: Strings,
  grantTypes: Strings,
  requiredRegions: Type.Array(Type.Integer(), { maxItems: 100 }),
  postLogoutRedirectUris: Type.Optional(Strings),
  backchannelLogoutUri: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  backchannelLogoutSessionRequired: Type.Optional(Type.Boolean()),
  requirePushedAuthorizationRequests: Type.Optional(Type.Boolean()),
  idTokenSignedResponseAlg: Type.Optional(Type.String({ maxLength: 20 })),
  tokenEndpointAuthMethod: Type.Optional(Type.String({ maxLength: 40 })),
  jwks: Type.Optional(Type.Union([Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 100 }) }), Type.Null()])),
  jwksUri: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  dpopBoundAccessTokens: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type ExportedClient = Static<typeof ExportedClient>;

export interface ImportReport {
  created: { clientId: string; confidential: boolean; secret: string | null }[];
  updated: string[];
  unchanged: string[];
  /** The secrets of updated clients that an entry turned to a secret method: shown once, as on creation. */
  newSecrets: { clientId: string; secret: string }[];
}

export async function exportClients(db: DB): Promise<ExportedClient[]> {
  return (await listClients(db)).map(exportedClient);
}

function exportedClient(client: Client): ExportedClient {
  const { createdAt: _c, updatedAt: _u, ...settings } = client;
  return settings;
}

/** Entries that are not clients' settings are refused, naming the entry and field: nothing is written then. */
export function readExportedClients(data: unknown): ExportedClient[] {
  if (!Array.isArray(data)) throw new InvalidInput([], 'the file must hold a JSON array of clients, as client export writes it');
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  data.forEach((entry, index) => {
    const first = Value.Errors(ExportedClient, entry).First();
    if (first) errors.push({ field: `[${index}]${first.path.replaceAll('/', '.')}`, message: first.message });
    else if (seen.has((entry as ExportedClient).clientId)) errors.push({ field: `[${index}].clientId`, message: 'appears twice' });
    else seen.add((entry as ExportedClient).clientId);
  });
  if (errors.length > 0) throw new InvalidInput(errors, 'the file holds entries that are not clients\' settings');
  return data as ExportedClient[];
}

/** All of the file or nothing, in one transaction; each creation and change recorded as `client add` and `client update` record theirs. */
export async function importClients(db: DB, keys: KeyMaterial, entries: readonly ExportedClient[], now: Date, log: EventLog = NO_EVENT_LOG): Promise<ImportReport> {
  const events = deferredEventLog(log);
  const report = await db.transaction().execute(async (trx) => {
    const plan = await planImport(trx, entries);
    const done: ImportReport = { created: [], updated: [], unchanged: [], newSecrets: [] };
    for (const { entry, action } of plan) {
      const { clientId, ...settings } = entry;
      if (action === 'create') {
        const { secret } = await createClient(trx, keys, entry, undefined, events.log);
        done.created.push({ clientId, confidential: entry.confidential, secret });
      } else {
        const { changed, secret } = await updateClient(trx, keys, clientId, settings, now, events.log);
        (changed ? done.updated : done.unchanged).push(clientId);
        if (secret !== null) done.newSecrets.push({ clientId, secret });
      }
    }
    return done;
  });
  events.release();
  return report;
}

/** Each entry checked by the service's own rules (whether it changes a client, `updateClient` tells). */
async function planImport(db: Executor, entries: readonly ExportedClient[]) {
  const errors: FieldError[] = [];
  const plan: { entry: ExportedClient; action: 'create' | 'update' }[] = [];
  for (const [index, entry] of entries.entries()) {
    const own: FieldError[] = [];
    if (!CLIENT_ID_PATTERN.test(entry.clientId)) own.push({ field: 'clientId', message: 'must be 1 to 100 characters: letters, digits, "-", "_" or "."' });
    const contradiction = confidentialityContradiction(entry);
    if (contradiction) own.push({ field: 'confidential', message: contradiction });
    await validateSettings(db, entry, own);
    errors.push(...own.map((e) => ({ field: `[${index}] ${entry.clientId}: ${e.field}`, message: e.message })));
    const existing = own.length === 0 ? await findClient(db, entry.clientId) : undefined;
    plan.push({ entry, action: existing ? 'update' : 'create' });
  }
  if (errors.length > 0) throw new InvalidInput(errors, 'nothing was imported: some clients\' settings are refused');
  return plan;
}

/** As `client add` refuses `--public` beside a secret or key method: the method decides what is stored, the file must agree. */
function confidentialityContradiction(entry: ExportedClient): string | undefined {
  const method = entry.tokenEndpointAuthMethod;
  if (method === undefined) return undefined;
  if (!entry.confidential && method !== 'none') return `is false, but tokenEndpointAuthMethod ${method} is a confidential client's: a public client authenticates with none`;
  if (entry.confidential && method === 'none') return 'is true, but tokenEndpointAuthMethod none is a public client\'s: a confidential client has a secret or keys';
  return undefined;
}
