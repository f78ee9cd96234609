/**
 * The options that set a client's settings, shared by `client add` and
 * `client update`: one entry per option, naming the service field it fills.
 * A new client setting is one more line in {@link CLIENT_SETTING_OPTIONS}.
 */
import { readFileSync } from 'node:fs';
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../oauth/clients/auth-methods.ts';
import type { Client, ClientSettings } from '../oauth/clients/clients.service.ts';
import { DEFAULT_SIGNING_ALG, SIGNING_ALGS } from '../oauth/jose/algorithms.ts';
import { GRANT_TYPES, SCOPES } from '../oauth/scopes.ts';
import { positiveIntegers, stringList, UsageError, type OptionSpec, type OptionValues } from './command.ts';

interface SettingOption extends OptionSpec {
  readonly field: keyof ClientSettings;
  read(values: OptionValues, name: string): unknown;
}

const text = (field: keyof ClientSettings, value: string, help: string): SettingOption =>
  ({ type: 'string', field, value, help, read: (values, name) => values[name] });
const list = (field: keyof ClientSettings, value: string, help: string): SettingOption =>
  ({ type: 'string', multiple: true, field, value, help, read: stringList });
/** Region ids; `--option ''` alone clears the list. */
const regions = (field: keyof ClientSettings, help: string): SettingOption =>
  ({ type: 'string', multiple: true, field, value: 'ID', help, read: (values, name) => (stringList(values, name).join('') === '' ? [] : positiveIntegers(values, name)) });
/** A string whose empty value (`--option ''`) clears the setting. */
const clearable = (field: keyof ClientSettings, value: string, help: string): SettingOption =>
  ({ type: 'string', field, value, help, read: (values, name) => (values[name] === '' ? null : values[name]) });
/** A JSON file's content (`--jwks-file PATH`): a usage error when it cannot be read or parsed. */
const jsonFile = (field: keyof ClientSettings, value: string, help: string): SettingOption =>
  ({ type: 'string', field, value, help, read: (values, name) => readJsonFile(String(values[name])) });
const flag = (field: keyof ClientSettings, setTo: boolean, help: string): SettingOption =>
  ({ type: 'boolean', field, help, read: () => setTo });

export const CLIENT_SETTING_OPTIONS: Readonly<Record<string, SettingOption>> = {
  name: text('name', 'NAME', 'the name members see on the consent page'),
  'redirect-uri': list('redirectUris', 'URI', 'an exact redirect URI; repeat for several'),
  scope: list('scopes', 'SCOPE', `a scope the client may ask for (${SCOPES.join(', ')}); repeat; openid is always included`),
  grant: list('grantTypes', 'GRANT', `a grant type besides authorization_code (${GRANT_TYPES.filter((g) => g !== 'authorization_code').join(', ')}); repeat`),
  'required-region': regions('requiredRegions', 'only members of this region may sign in; repeat (none given: every member); \'\' clears'),
  'post-logout-redirect-uri': list('postLogoutRedirectUris', 'URI', 'an exact URI the member may be sent to after logging out through the client; repeat; \'\' clears'),
  'backchannel-logout-uri': clearable('backchannelLogoutUri', 'URI', 'where logout tokens are posted when a session that signed into the client ends; \'\' clears'),
  'backchannel-logout-session-required': flag('backchannelLogoutSessionRequired', true, 'logout tokens must carry the session id (sid)'),
  'id-token-signed-response-alg': text('idTokenSignedResponseAlg', 'ALG', `signs the client's ID tokens, access tokens and logout tokens: ${SIGNING_ALGS.join(', ')} (${DEFAULT_SIGNING_ALG} by default)`),
  'token-endpoint-auth-method': text('tokenEndpointAuthMethod', 'METHOD', `how the client authenticates: ${TOKEN_ENDPOINT_AUTH_METHODS.join(', ')} (a secret method accepts both basic and post)`),
  'jwks-uri': clearable('jwksUri', 'URI', 'for private_key_jwt: where the client publishes its public keys (https; http on loopback outside production); \'\' clears'),
  'jwks-file': jsonFile('jwks', 'PATH', 'for private_key_jwt: a file with the client\'s public keys as a JWK Set ({"keys": [...]})'),
  'no-backchannel-logout-session-required': flag('backchannelLogoutSessionRequired', false, 'logout tokens need not carry the session id (the default)'),
  'require-pushed-authorization-requests': flag('requirePushedAuthorizationRequests', true, 'authorization requests only as pushed ones (RFC 9126, POST /oauth/par)'),
  'no-require-pushed-authorization-requests': flag('requirePushedAuthorizationRequests', false, 'authorization requests also through the browser alone (the default)'),
  'dpop-bound-access-tokens': flag('dpopBoundAccessTokens', true, 'every token request must carry a DPoP proof (RFC 9449 §5.2); its tokens are bound to the proof\'s key'),
  'no-dpop-bound-access-tokens': flag('dpopBoundAccessTokens', false, 'a DPoP proof is optional: tokens are bound when one is sent (the default)'),
};

export const EMPTY_SETTINGS: ClientSettings = {
  name: '', confidential: true, redirectUris: [], scopes: [], grantTypes: [], requiredRegions: [],
  postLogoutRedirectUris: [], backchannelLogoutUri: null, backchannelLogoutSessionRequired: false,
  requirePushedAuthorizationRequests: false,
  idTokenSignedResponseAlg: DEFAULT_SIGNING_ALG,
  dpopBoundAccessTokens: false,
};

/** The settings the options give, on top of `base` (an existing client, or {@link EMPTY_SETTINGS}). */
export function readClientSettings(values: OptionValues, base: ClientSettings): ClientSettings {
  for (const name of ['backchannel-logout-session-required', 'require-pushed-authorization-requests', 'dpop-bound-access-tokens']) {
    if (values[name] && values[`no-${name}`]) throw new UsageError(`give either --${name} or --no-${name}, not both`);
  }
  const settings: Record<string, unknown> = { ...base };
  for (const [name, option] of Object.entries(CLIENT_SETTING_OPTIONS)) {
    if (values[name] !== undefined) settings[option.field] = option.read(values, name);
  }
  return settings as unknown as ClientSettings;
}

function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new UsageError(`cannot read a JSON Web Key Set from ${path}: ${(error as Error).message}`);
  }
}

export function settingsOf(client: Client): ClientSettings {
  const { clientId: _id, createdAt: _c, updatedAt: _u, ...settings } = client;
  return settings;
}

/** A client for `--json`, dates as ISO strings. */
export function clientJson(client: Client) {
  return { ...client, createdAt: client.createdAt.toISOString(), updatedAt: client.updatedAt.toISOString() };
}

export function describeClient(client: Client): string[] {
  return [
    `${client.clientId}: ${client.name} (${client.confidential ? 'confidential' : 'public'})`,
    `  redirect URIs:    ${client.redirectUris.join(', ')}`,
    `  scopes:           ${client.scopes.join(' ')}`,
    `  grant types:      ${client.grantTypes.join(', ')}`,
    `  required regions: ${client.requiredRegions.length === 0 ? 'none (every member)' : client.requiredRegions.join(', ')}`,
    `  post-logout redirect URIs: ${client.postLogoutRedirectUris.length === 0 ? 'none' : client.postLogoutRedirectUris.join(', ')}`,
    `  back-channel logout: ${client.backchannelLogoutUri === null ? 'none'
      : `${client.backchannelLogoutUri}${client.backchannelLogoutSessionRequired ? ' (sid required)' : ''}`}`,
    `  pushed authorization requests: ${client.requirePushedAuthorizationRequests ? 'required' : 'optional'}`,
    `  DPoP-bound access tokens: ${client.dpopBoundAccessTokens ? 'required (every token request carries a DPoP proof)' : 'optional (bound when a proof is sent)'}`,
    `  client authentication: ${client.tokenEndpointAuthMethod}${client.jwksUri !== null ? ` (keys from ${client.jwksUri})`
      : client.jwks !== null ? ` (${client.jwks.keys.length} registered key${client.jwks.keys.length === 1 ? '' : 's'})` : ''}`,
    `  signing algorithm: ${client.idTokenSignedResponseAlg} (id_token_signed_response_alg: ID tokens, access tokens, logout tokens)`,
    `  created ${client.createdAt.toISOString()}, updated ${client.updatedAt.toISOString()}`,
  ];
}
