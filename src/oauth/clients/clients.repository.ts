/** SQL of OAuth clients and their required regions. */
import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import type { SigningAlg } from '../jose/algorithms.ts';
import type { TokenEndpointAuthMethod } from './auth-methods.ts';

export interface ClientRow {
  id: number;
  client_id: string;
  name: string;
  confidential: boolean;
  secret_digest: Buffer | null;
  redirect_uris: string[];
  scopes: string[];
  grant_types: string[];
  required_regions: number[];
  created_at: Date;
  updated_at: Date;
  /** Raised by every change of the client or its required regions. */
  version: number;
  post_logout_redirect_uris: string[];
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: boolean;
  require_pushed_authorization_requests: boolean;
  /** Migration 052: signs the client's ID tokens, access tokens and logout tokens. */
  id_token_signed_response_alg: SigningAlg;
  /** Migration 054 (RFC 7591 §2): a secret method (either of the two is accepted), private_key_jwt or none. */
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  /** The client's public keys for private_key_jwt, inline or by URL (one of them). */
  jwks: { keys: Record<string, unknown>[] } | null;
  jwks_uri: string | null;
  /** Migration 061 (RFC 9449 §5.2): every token request must carry a DPoP proof. */
  dpop_bound_access_tokens: boolean;
}

export interface ClientValues {
  name: string;
  confidential: boolean;
  secretDigest: Buffer | null;
  redirectUris: string[];
  origins: string[];
  scopes: string[];
  grantTypes: string[];
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  backchannelLogoutSessionRequired: boolean;
  requirePushedAuthorizationRequests: boolean;
  idTokenSignedResponseAlg: SigningAlg;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
  dpopBoundAccessTokens: boolean;
}

function selectClients(db: Executor) {
  return db.selectFrom('oauth_clients').select([
    'id', 'client_id', 'name', 'confidential', 'secret_digest', 'redirect_uris', 'scopes', 'grant_types', 'created_at', 'updated_at', 'version',
    'post_logout_redirect_uris', 'backchannel_logout_uri', 'backchannel_logout_session_required', 'require_pushed_authorization_requests',
    sql<SigningAlg>`id_token_signed_response_alg`.as('id_token_signed_response_alg'),
    sql<TokenEndpointAuthMethod>`token_endpoint_auth_method`.as('token_endpoint_auth_method'), 'jwks', 'jwks_uri', 'dpop_bound_access_tokens',
    sql<number[]>`array(select r.region_id from oauth_client_regions r where r.client_id = oauth_clients.id order by r.region_id)`.as('required_regions'),
  ]);
}

const clientById = statement<ClientRow>('find_client', `
  select id, client_id, name, confidential, secret_digest, redirect_uris, scopes, grant_types, created_at, updated_at, version,
    post_logout_redirect_uris, backchannel_logout_uri, backchannel_logout_session_required, require_pushed_authorization_requests, id_token_signed_response_alg,
    token_endpoint_auth_method, jwks, jwks_uri, dpop_bound_access_tokens,
    array(select r.region_id from oauth_client_regions r where r.client_id = oauth_clients.id order by r.region_id) as required_regions
  from oauth_clients where client_id = $1`);

/**
 * A statement's first CTE, `client`: the client's version, its row locked as a foreign key locks it (`for
 * key share`) before anything else the statement locks. Every statement that writes for a client begins so,
 * as a client's deletion begins by locking it ({@link deleteClientRow}): one waits for the other, never in a
 * circle (docs/security.md, "Lock order"). Empty once the client was deleted. `param`: the client row id's
 * parameter (`$2`).
 */
export function clientFirst(param: string): string {
  return `client as (select version from oauth_clients where id = ${param} for key share)`;
}

/** One indexed query, prepared once per connection: the client with its required regions. */
export async function findClientRow(db: Executor, clientId: string): Promise<ClientRow | undefined> {
  return (await clientById.rows(db, [clientId]))[0];
}

export function listClientRows(db: Executor): Promise<ClientRow[]> {
  return selectClients(db).orderBy('client_id').execute();
}

export async function insertClient(db: Executor, clientId: string, values: ClientValues): Promise<number> {
  const row = await db.insertInto('oauth_clients').values({ client_id: clientId, ...columnsOf(values) }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Writes the client's settings if it is still at `version` (the one read); whether it was. */
export async function updateClientRow(db: Executor, id: number, version: number, values: ClientValues, now: Date): Promise<boolean> {
  const row = await db.updateTable('oauth_clients').set({ ...columnsOf(values), updated_at: now })
    .where('id', '=', id).where('version', '=', version).returning('id').executeTakeFirst();
  return row !== undefined;
}

function columnsOf(values: ClientValues) {
  return {
    name: values.name,
    confidential: values.confidential,
    secret_digest: values.secretDigest,
    redirect_uris: values.redirectUris,
    origins: values.origins,
    scopes: values.scopes,
    grant_types: values.grantTypes,
    post_logout_redirect_uris: values.postLogoutRedirectUris,
    backchannel_logout_uri: values.backchannelLogoutUri,
    backchannel_logout_session_required: values.backchannelLogoutSessionRequired,
    require_pushed_authorization_requests: values.requirePushedAuthorizationRequests,
    id_token_signed_response_alg: values.idTokenSignedResponseAlg,
    token_endpoint_auth_method: values.tokenEndpointAuthMethod,
    jwks: values.jwks === null ? null : JSON.stringify(values.jwks),
    jwks_uri: values.jwksUri,
    dpop_bound_access_tokens: values.dpopBoundAccessTokens,
  };
}

/**
 * Whether storing `values` and `regionIds` would leave the client as `existing` is: every column
 * the update writes, compared as stored (`origins` follows from the redirect URIs; the key set by
 * its members, as PostgreSQL's jsonb keeps it; the regions as a set).
 */
export function sameClient(existing: ClientRow, values: ClientValues, regionIds: readonly number[]): boolean {
  const { origins: _derived, jwks: _text, ...columns } = columnsOf(values);
  const stored = existing as unknown as Record<string, unknown>;
  return Object.entries(columns).every(([column, value]) => isDeepStrictEqual(stored[column], value))
    // As jsonb stores it: JSON's numbers (-0 is 0).
    && isDeepStrictEqual(existing.jwks, values.jwks === null ? null : JSON.parse(JSON.stringify(values.jwks)))
    && isDeepStrictEqual([...new Set(regionIds)].sort((a, b) => a - b), existing.required_regions);
}

export async function replaceRequiredRegions(db: Executor, id: number, regionIds: readonly number[]): Promise<void> {
  await db.deleteFrom('oauth_client_regions').where('client_id', '=', id).execute();
  if (regionIds.length === 0) return;
  await db.insertInto('oauth_client_regions').values(regionIds.map((region_id) => ({ client_id: id, region_id }))).execute();
}

/** Replaces the secret's digest if the client is still at `version` (the one read); whether it was. */
export async function setSecretDigest(db: Executor, id: number, version: number, digest: Buffer, now: Date): Promise<boolean> {
  const row = await db.updateTable('oauth_clients').set({ secret_digest: digest, updated_at: now })
    .where('id', '=', id).where('version', '=', version).returning('id').executeTakeFirst();
  return row !== undefined;
}

/** Whether a client row with this id still exists. */
export async function clientRowExists(db: Executor, id: number): Promise<boolean> {
  return (await db.selectFrom('oauth_clients').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * Deleting cascades to codes, grants, refresh tokens and consents: every token of the client stops working.
 * In the caller's transaction: the client's row locked first (a code's statement locks it first too), then the
 * refresh tokens before their grants (a refresh locks its token, then the grant it extends); the cascade alone
 * would reach the grants first. False when there is no such client.
 */
export async function deleteClientRow(trx: Executor, clientId: string): Promise<boolean> {
  const client = await trx.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).forUpdate().executeTakeFirst();
  if (!client) return false;
  await trx.deleteFrom('oauth_refresh_tokens')
    .where('grant_id', 'in', (eb) => eb.selectFrom('oauth_grants').select('id').where('client_id', '=', client.id)).execute();
  await trx.deleteFrom('oauth_clients').where('id', '=', client.id).execute();
  return true;
}

/** Whether any registered redirect URI has this web origin (CORS). */
export async function isRegisteredOrigin(db: Executor, origin: string): Promise<boolean> {
  const row = await db.selectFrom('oauth_clients').select('id')
    .where('origins', '@>', sql<string[]>`array[${origin}]::text[]`).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** `text` as a LIKE pattern that matches it anywhere, its wildcards taken literally. */
function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of the clients whose name or client id contains `text` (any case),
 * by client id (unique, so each client is on exactly one page), and how many
 * match in all.
 */
export async function searchClientRows(db: Executor, text: string, limit: number, offset: number): Promise<{ rows: ClientRow[]; total: number }> {
  const pattern = containing(text);
  const where = text === ''
    ? sql<boolean>`true`
    : sql<boolean>`(oauth_clients.name ilike ${pattern} or oauth_clients.client_id ilike ${pattern})`;
  const rows = await selectClients(db).where(where).orderBy('client_id').limit(limit).offset(offset).execute();
  const count = await db.selectFrom('oauth_clients').select((eb) => eb.fn.countAll<string>().as('total')).where(where).executeTakeFirstOrThrow();
  return { rows, total: Number(count.total) };
}

/**
 * SQL: the scopes of `scopes` (a column) the client may still use (`allowed`, a parameter), in their order.
 * An operator who takes a scope from a client takes it from the client's grants too: codes and refresh
 * tokens issued before carry it no further.
 */
export function scopesStillAllowed(scopes: string, allowed: string): string {
  // The usual case, every scope still allowed, costs one containment test; the filtering subquery runs only otherwise.
  return `case when ${scopes} <@ ${allowed}::text[] then ${scopes} `
    + `else array(select s from unnest(${scopes}) with ordinality as granted(s, i) where s = any(${allowed}::text[]) order by i) end`;
}

/**
 * SQL conditions on a code (`table`, with `scopes` and `user_id`) for the client as it is now: it keeps some
 * scope the client may still use (`allowed`), and its member is in one of the client's required regions
 * (`regions`), when it has any. An operator's change since the code was issued counts at once, as it does at
 * every refresh.
 */
export function stillGrantable(table: string, allowed: string, regions: string): string {
  return `${table}.scopes && ${allowed}::text[]
      and (cardinality(${regions}::integer[]) = 0 or exists (
        select 1 from region_memberships m where m.user_id = ${table}.user_id and m.region_id = any(${regions}::integer[])))`;
}
