/**
 * Registering and administering OAuth clients (SPEC §5.1, §5.7), shared by the
 * admin screen, the CLI and the demo dataset. Every rule lives here; a bad
 * field throws {@link InvalidClientInput} naming it.
 */
import type { DB } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { FieldError } from '../../invalid-input.ts';
import { logSecurityEvent, NO_EVENT_LOG, type EventLog } from '../../ops/security-events.ts';
import type { SigningAlg } from '../jose/algorithms.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { GRANT_TYPES, sortScopes, type GrantType, type Scope } from '../scopes.ts';
import { revokeGrantsOfClient } from '../grants/grants.repository.ts';
import { isSecretMethod, type TokenEndpointAuthMethod } from './auth-methods.ts';
import { ClientChangedMeanwhile, ClientNotFound, InvalidClientInput } from './client-errors.ts';
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';
import { CLIENT_ID_PATTERN } from './client-id.ts';
import { validateSettings, type ClientSettings } from './client-settings.ts';
import { digestClientSecret, generateClientSecret } from './client-secret.ts';
import {
  clientRowExists, deleteClientRow, findClientRow, insertClient, listClientRows, replaceRequiredRegions, sameClient, searchClientRows, setSecretDigest, updateClientRow,
  type ClientRow,
} from './clients.repository.ts';

export { MAX_REDIRECT_URIS, type ClientSettings } from './client-settings.ts';

export interface ClientInput extends ClientSettings {
  clientId: string;
}

export interface Client {
  clientId: string;
  name: string;
  confidential: boolean;
  redirectUris: string[];
  scopes: Scope[];
  grantTypes: GrantType[];
  requiredRegions: number[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  backchannelLogoutSessionRequired: boolean;
  requirePushedAuthorizationRequests: boolean;
  /** RS256, ES256 or EdDSA: the client's ID tokens, access tokens and logout tokens (migration 052). */
  idTokenSignedResponseAlg: SigningAlg;
  /** RFC 7591 §2 (migration 054): a secret method (either is accepted), private_key_jwt or none. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
  /** RFC 9449 §5.2 (migration 061): token requests must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Registers a client. Returns the secret of a confidential client: it is shown
 * once and stored only as a keyed digest. `fixedSecret` is for the demo dataset.
 */
export async function createClient(db: Executor, keys: KeyMaterial, input: ClientInput, fixedSecret?: string, log: EventLog = NO_EVENT_LOG): Promise<{ clientId: string; secret: string | null }> {
  const errors: FieldError[] = [];
  const clientId = input.clientId.trim();
  if (!CLIENT_ID_PATTERN.test(clientId)) {
    errors.push({ field: 'clientId', message: 'must be 1 to 100 characters: letters, digits, "-", "_" or "."' });
  } else if (await findClientRow(db, clientId)) {
    errors.push({ field: 'clientId', message: 'is already taken by another client' });
  }
  const settings = await validateSettings(db, input, errors);
  if (errors.length > 0) throw new InvalidClientInput(errors);
  const secret = isSecretMethod(settings.tokenEndpointAuthMethod) ? fixedSecret ?? generateClientSecret() : null;
  try {
    await inTransaction(db, async (trx) => {
      const id = await insertClient(trx, clientId, { ...settings, secretDigest: secret === null ? null : digestClientSecret(keys, secret) });
      await replaceRequiredRegions(trx, id, input.requiredRegions);
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new InvalidClientInput([{ field: 'clientId', message: 'is already taken by another client' }]);
    }
    throw error;
  }
  logSecurityEvent(log, { event: 'oauth.client.created', clientId, confidential: settings.confidential });
  return { clientId, secret };
}

/**
 * Changes a client's settings (the client id never changes). A client
 * turned to a secret method gets a new secret, returned once; the reverse drops it.
 * Narrowed scopes or grant types do not touch tokens already issued. Settings
 * the client has already change nothing (`changed` false): no write, no event.
 * With `seen.version` (the admin form's, from {@link findClientWithVersion} when
 * it was opened), a client changed since then is not overwritten:
 * {@link ClientChangedMeanwhile}.
 */
export async function updateClient(
  db: Executor, keys: KeyMaterial, clientId: string, input: ClientSettings, now: Date, log: EventLog = NO_EVENT_LOG, seen: { version?: number } = {},
): Promise<{ secret: string | null; changed: boolean }> {
  const existing = await findClientRow(db, clientId);
  if (!existing) throw new ClientNotFound(clientId);
  const version = seen.version ?? existing.version;
  const errors: FieldError[] = [];
  const settings = await validateSettings(db, keepingKeys(existing, input), errors);
  if (errors.length > 0) throw new InvalidClientInput(errors);
  let secret: string | null = null;
  let secretDigest = existing.secret_digest;
  if (!isSecretMethod(settings.tokenEndpointAuthMethod)) secretDigest = null;
  else if (secretDigest === null) {
    secret = generateClientSecret();
    secretDigest = digestClientSecret(keys, secret);
  }
  const values = { ...settings, secretDigest };
  // A form saved as it was: nothing written, no version raised (no client cache emptied), nothing in the audit log.
  if (sameClient(existing, values, input.requiredRegions)) return { secret, changed: false };
  await inTransaction(db, async (trx) => {
    if (!(await updateClientRow(trx, existing.id, version, values, now))) throw await changedOrGone(trx, existing);
    await replaceRequiredRegions(trx, existing.id, input.requiredRegions);
  });
  logSecurityEvent(log, { event: 'oauth.client.changed', clientId, change: 'settings' });
  return { secret, changed: true };
}

/**
 * A change that names no authentication method (the admin screen's form, which
 * has no key fields) keeps a private_key_jwt client's method and keys, unless
 * it makes the client public: saving the form must not turn the client into a
 * secret client and drop its keys.
 */
function keepingKeys(existing: ClientRow, input: ClientSettings): ClientSettings {
  if (input.tokenEndpointAuthMethod !== undefined || existing.token_endpoint_auth_method !== 'private_key_jwt' || !input.confidential) return input;
  return { ...input, tokenEndpointAuthMethod: 'private_key_jwt', jwks: input.jwks ?? existing.jwks, jwksUri: input.jwksUri ?? existing.jwks_uri };
}

/** Deletes a client with its consents, codes and grants: its tokens stop working at once. */
export async function deleteClient(db: DB, clientId: string, log: EventLog = NO_EVENT_LOG): Promise<void> {
  if (!(await inTransaction(db, (trx) => deleteClientRow(trx, clientId)))) throw new ClientNotFound(clientId);
  logSecurityEvent(log, { event: 'oauth.client.deleted', clientId });
}

/**
 * A new secret for a confidential client, shown once; the old one stops working at once. With `seen.version`
 * (the confirmation page's, from {@link findClientWithVersion} when it was opened), a client changed since
 * then — another operator's new secret among others — gets none: {@link ClientChangedMeanwhile}.
 */
export async function regenerateClientSecret(
  db: DB, keys: KeyMaterial, clientId: string, now: Date, log: EventLog = NO_EVENT_LOG, seen: { version?: number } = {},
): Promise<string> {
  const existing = await findClientRow(db, clientId);
  if (!existing) throw new ClientNotFound(clientId);
  if (!existing.confidential) {
    throw new InvalidClientInput([{ field: 'confidential', message: 'a public client has no secret' }], 'A public client has no secret.');
  }
  if (!isSecretMethod(existing.token_endpoint_auth_method)) {
    throw new InvalidClientInput([{ field: 'tokenEndpointAuthMethod', message: 'a private_key_jwt client has no secret' }], 'A private_key_jwt client has no secret.');
  }
  const secret = generateClientSecret();
  if (!(await setSecretDigest(db, existing.id, seen.version ?? existing.version, digestClientSecret(keys, secret), now))) throw await changedOrGone(db, existing);
  logSecurityEvent(log, { event: 'oauth.client.changed', clientId, change: 'secret' });
  return secret;
}

/**
 * Why a write conditional on the version read wrote nothing: the client was deleted meanwhile, or changed by
 * someone else (a second operator's edit, a secret regenerated twice at once: one of two secrets shown would
 * never have worked).
 */
async function changedOrGone(db: Executor, existing: ClientRow): Promise<ClientNotFound | ClientChangedMeanwhile> {
  return (await clientRowExists(db, existing.id)) ? new ClientChangedMeanwhile(existing.client_id) : new ClientNotFound(existing.client_id);
}

export async function listClients(db: DB): Promise<Client[]> {
  return (await listClientRows(db)).map(toClient);
}

/**
 * The admin screen's list: one page of the clients whose name or client id
 * contains `search` (any case; empty: every client), by client id, and how
 * many match in all. Text no name or client id can hold (control
 * characters, such as NUL, which PostgreSQL refuses) matches none.
 */
export async function searchClients(db: DB, search: string, limit: number, offset: number): Promise<{ clients: Client[]; total: number }> {
  if (hasRefusedNameCharacters(search)) return { clients: [], total: 0 };
  const { rows, total } = await searchClientRows(db, search, limit, offset);
  return { clients: rows.map(toClient), total };
}

export async function findClient(db: DB, clientId: string): Promise<Client | undefined> {
  return (await findClientWithVersion(db, clientId))?.client;
}

/** The client with the version of its settings, which an edit form carries back to {@link updateClient}. */
export async function findClientWithVersion(db: DB, clientId: string): Promise<{ client: Client; version: number } | undefined> {
  if (!CLIENT_ID_PATTERN.test(clientId)) return undefined;
  const row = await findClientRow(db, clientId);
  return row && { client: toClient(row), version: row.version };
}

/** Revokes every grant of a client (all its access and refresh tokens), keeping the client. */
export async function revokeClientTokens(db: DB, clientId: string, now: Date): Promise<void> {
  const row = await findClientRow(db, clientId);
  if (!row) throw new ClientNotFound(clientId);
  await revokeGrantsOfClient(db, row.id, now);
}

function toClient(row: ClientRow): Client {
  return {
    clientId: row.client_id,
    name: row.name,
    confidential: row.confidential,
    redirectUris: row.redirect_uris,
    scopes: sortScopes(row.scopes),
    grantTypes: GRANT_TYPES.filter((g) => row.grant_types.includes(g)),
    requiredRegions: row.required_regions,
    postLogoutRedirectUris: row.post_logout_redirect_uris,
    backchannelLogoutUri: row.backchannel_logout_uri,
    backchannelLogoutSessionRequired: row.backchannel_logout_session_required,
    requirePushedAuthorizationRequests: row.require_pushed_authorization_requests,
    idTokenSignedResponseAlg: row.id_token_signed_response_alg,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method,
    jwks: row.jwks,
    jwksUri: row.jwks_uri,
    dpopBoundAccessTokens: row.dpop_bound_access_tokens,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
