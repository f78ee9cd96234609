/**
 * The client form of the admin screen (SPEC §5.7): parsing the posted fields,
 * and a message per field in the reader's language. The service stays the
 * authority on every rule; this layer only words its verdicts for people.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FieldError } from '../../invalid-input.ts';
import { backchannelLogoutUriProblem } from '../../oauth/checks/logout-uri.ts';
import { redirectUriProblem } from '../../oauth/checks/redirect-uri.ts';
import { isTokenEndpointAuthMethod } from '../../oauth/clients/auth-methods.ts';
import { CLIENT_ID_PATTERN } from '../../oauth/clients/client-id.ts';
import { validateKeySettings } from '../../oauth/clients/client-key-settings.ts';
import { DEFAULT_SIGNING_ALG, isSigningAlg } from '../../oauth/jose/algorithms.ts';
import { MAX_REDIRECT_URIS, type Client, type ClientInput } from '../../oauth/clients/clients.service.ts';
import { isGrantType, isScope } from '../../oauth/scopes.ts';
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';
import type { Translate } from '../i18n.ts';

const Many = Type.Union([Type.String({ maxLength: 100 }), Type.Array(Type.String({ maxLength: 100 }), { maxItems: 1000 })]);

export const ClientForm = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  client_id: Type.Optional(Type.String({ maxLength: 1000 })),
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  confidential: Type.Optional(Type.String({ maxLength: 10 })),
  redirect_uris: Type.Optional(Type.String({ maxLength: 100_000 })),
  scopes: Type.Optional(Many),
  grant_types: Type.Optional(Many),
  required_regions: Type.Optional(Many),
  post_logout_redirect_uris: Type.Optional(Type.String({ maxLength: 100_000 })),
  backchannel_logout_uri: Type.Optional(Type.String({ maxLength: 10_000 })),
  backchannel_logout_session_required: Type.Optional(Type.String({ maxLength: 10 })),
  require_pushed_authorization_requests: Type.Optional(Type.String({ maxLength: 10 })),
  id_token_signed_response_alg: Type.Optional(Type.String({ maxLength: 20 })),
  token_endpoint_auth_method: Type.Optional(Type.String({ maxLength: 40 })),
  jwks: Type.Optional(Type.String({ maxLength: 100_000 })),
  jwks_uri: Type.Optional(Type.String({ maxLength: 10_000 })),
  dpop_bound_access_tokens: Type.Optional(Type.String({ maxLength: 10 })),
  /** The edit form's: the version of the settings it was opened with. */
  version: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ClientFormBody = Static<typeof ClientForm>;

/** What the form shows: the values as typed, so a rejected form keeps them. */
export interface ClientFormValues {
  clientId: string;
  name: string;
  confidential: boolean;
  redirectUris: string;
  scopes: string[];
  grantTypes: string[];
  requiredRegions: number[];
  /** One per line, as typed. */
  postLogoutRedirectUris: string;
  backchannelLogoutUri: string;
  backchannelLogoutSessionRequired: boolean;
  requirePushedAuthorizationRequests: boolean;
  /** RS256, ES256 or EdDSA; anything else is reported beside the select. */
  idTokenSignedResponseAlg: string;
  /**
   * RFC 7591 §2; '' is "by type": a secret method for a confidential client,
   * none for a public one. Undefined when the form did not carry the field:
   * the service then keeps a private_key_jwt client's method and keys.
   */
  tokenEndpointAuthMethod: string | undefined;
  /** The JWK Set as typed (JSON); '' for none. */
  jwks: string;
  jwksUri: string;
  dpopBoundAccessTokens: boolean;
}

/** Field id (a key of {@link ClientFormValues}, or a field the service names) → message, shown next to the field. */
export type FieldMessages = Partial<Record<keyof ClientFormValues | (string & {}), string>>;

function many(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

function isChecked(value: string | undefined): boolean {
  return value === '1' || value === 'on';
}

function lines(text: string): string[] {
  return text.split(/\r?\n/).map((u) => u.trim()).filter((u) => u !== '');
}

export function readClientForm(body: ClientFormBody): ClientFormValues {
  return {
    clientId: (body.client_id ?? '').trim(),
    name: body.name ?? '',
    confidential: isChecked(body.confidential),
    redirectUris: body.redirect_uris ?? '',
    scopes: many(body.scopes),
    grantTypes: many(body.grant_types),
    // A value that is no region id becomes -1, which the service reports as unknown.
    requiredRegions: many(body.required_regions).map((v) => (/^[1-9]\d{0,9}$/.test(v) ? Number(v) : -1)),
    postLogoutRedirectUris: body.post_logout_redirect_uris ?? '',
    backchannelLogoutUri: (body.backchannel_logout_uri ?? '').trim(),
    backchannelLogoutSessionRequired: isChecked(body.backchannel_logout_session_required),
    requirePushedAuthorizationRequests: isChecked(body.require_pushed_authorization_requests),
    idTokenSignedResponseAlg: body.id_token_signed_response_alg ?? DEFAULT_SIGNING_ALG,
    tokenEndpointAuthMethod: body.token_endpoint_auth_method,
    jwks: (body.jwks ?? '').trim(),
    jwksUri: (body.jwks_uri ?? '').trim(),
    dpopBoundAccessTokens: isChecked(body.dpop_bound_access_tokens),
  };
}

/**
 * The version an edit form (or the new secret's confirmation) was opened with; undefined when the form carries
 * none (a page opened before the field existed: the last save wins), -1 —
 * which no client has — when it carries something else, or more than the
 * column holds (a PostgreSQL `integer`).
 */
export function postedVersion(body: Pick<ClientFormBody, 'version'>): number | undefined {
  if (body.version === undefined) return undefined;
  const version = /^\d{1,10}$/.test(body.version) ? Number(body.version) : -1;
  return version <= 2_147_483_647 ? version : -1;
}

export function formValuesOf(client: Client): ClientFormValues {
  return {
    clientId: client.clientId,
    name: client.name,
    confidential: client.confidential,
    redirectUris: client.redirectUris.join('\n'),
    scopes: client.scopes,
    grantTypes: client.grantTypes,
    requiredRegions: client.requiredRegions,
    postLogoutRedirectUris: client.postLogoutRedirectUris.join('\n'),
    backchannelLogoutUri: client.backchannelLogoutUri ?? '',
    backchannelLogoutSessionRequired: client.backchannelLogoutSessionRequired,
    requirePushedAuthorizationRequests: client.requirePushedAuthorizationRequests,
    idTokenSignedResponseAlg: client.idTokenSignedResponseAlg,
    // The method the type implies shows as "by type", so that ticking or unticking the type alone still works.
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod === (client.confidential ? 'client_secret_basic' : 'none') ? '' : client.tokenEndpointAuthMethod,
    jwks: client.jwks === null ? '' : JSON.stringify(client.jwks, null, 2),
    jwksUri: client.jwksUri ?? '',
    dpopBoundAccessTokens: client.dpopBoundAccessTokens,
  };
}

export const EMPTY_FORM: ClientFormValues = {
  clientId: '', name: '', confidential: true, redirectUris: '', scopes: ['openid'], grantTypes: ['authorization_code'], requiredRegions: [],
  postLogoutRedirectUris: '', backchannelLogoutUri: '', backchannelLogoutSessionRequired: false,
  requirePushedAuthorizationRequests: false, idTokenSignedResponseAlg: DEFAULT_SIGNING_ALG,
  tokenEndpointAuthMethod: '', jwks: '', jwksUri: '', dpopBoundAccessTokens: false,
};

export function toClientInput(values: ClientFormValues): ClientInput {
  return {
    clientId: values.clientId,
    name: values.name,
    confidential: values.confidential,
    redirectUris: values.redirectUris.split(/\r?\n/),
    scopes: values.scopes,
    grantTypes: values.grantTypes,
    requiredRegions: values.requiredRegions,
    postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
    backchannelLogoutUri: values.backchannelLogoutUri === '' ? null : values.backchannelLogoutUri,
    backchannelLogoutSessionRequired: values.backchannelLogoutSessionRequired,
    requirePushedAuthorizationRequests: values.requirePushedAuthorizationRequests,
    idTokenSignedResponseAlg: values.idTokenSignedResponseAlg,
    tokenEndpointAuthMethod: chosenMethod(values),
    // Checked by checkClientForm: '' is no key set, anything else parses.
    jwks: values.jwks === '' ? null : JSON.parse(values.jwks) as unknown,
    jwksUri: values.jwksUri === '' ? null : values.jwksUri,
    dpopBoundAccessTokens: values.dpopBoundAccessTokens,
  };
}

/** The rules a person can break by typing, worded for them; the rest is left to the service. */
export function checkClientForm(values: ClientFormValues, t: Translate, options: { checkClientId: boolean }): FieldMessages {
  const messages: FieldMessages = {};
  if (options.checkClientId) {
    if (values.clientId === '') messages.clientId = t('admin.error.clientIdMissing');
    else if (!CLIENT_ID_PATTERN.test(values.clientId)) messages.clientId = t('admin.error.clientIdPattern');
  }
  const name = values.name.trim();
  if (name === '') messages.name = t('admin.error.nameMissing');
  else if (name.length > 200) messages.name = t('admin.error.nameLong');
  else if (hasRefusedNameCharacters(name)) messages.name = t('admin.error.nameControl');
  if (lines(values.redirectUris).length === 0) messages.redirectUris = t('admin.error.redirectMissing');
  else messages.redirectUris = redirectUrisMessage(lines(values.redirectUris), t);
  messages.postLogoutRedirectUris = redirectUrisMessage(lines(values.postLogoutRedirectUris), t);
  if (values.backchannelLogoutUri !== '' && backchannelLogoutUriProblem(values.backchannelLogoutUri) !== undefined) {
    messages.backchannelLogoutUri = t('admin.error.backchannelInvalid');
  }
  if (!values.scopes.every(isScope)) messages.scopes = t('admin.error.scopes');
  if (!values.grantTypes.every(isGrantType)) messages.grantTypes = t('admin.error.grantTypes');
  if (!isSigningAlg(values.idTokenSignedResponseAlg)) messages.idTokenSignedResponseAlg = t('admin.error.signingAlg');
  Object.assign(messages, keySettingsMessages(values, t));
  return Object.fromEntries(Object.entries(messages).filter(([, message]) => message !== undefined));
}

/**
 * The method and keys, judged by the rules the CLI and the import use
 * (validateKeySettings), each verdict beside its field; the form adds only
 * what the CLI cannot be asked: JSON that does not parse, and a method that
 * contradicts the type checkbox.
 */
function keySettingsMessages(values: ClientFormValues, t: Translate): FieldMessages {
  const messages: FieldMessages = {};
  const method = chosenMethod(values);
  if (values.tokenEndpointAuthMethod !== '' && isTokenEndpointAuthMethod(method) && (method === 'none') === values.confidential) {
    messages.tokenEndpointAuthMethod = t(values.confidential ? 'admin.error.authMethodNone' : 'admin.error.authMethodPublic');
  }
  let jwks: unknown = null;
  if (values.jwks !== '') {
    try {
      jwks = JSON.parse(values.jwks);
    } catch (error) {
      messages.jwks = t('admin.error.jwksJson', { problem: (error as Error).message });
    }
  }
  const errors: FieldError[] = [];
  validateKeySettings({ confidential: values.confidential, tokenEndpointAuthMethod: method, jwks, jwksUri: values.jwksUri }, errors);
  for (const error of errors) {
    const field = error.field === 'jwksUri' ? 'jwksUri' : error.field === 'jwks' ? 'jwks' : 'tokenEndpointAuthMethod';
    messages[field] ??= field === 'tokenEndpointAuthMethod' ? t('admin.error.authMethod') : t('admin.error.keys', { problem: error.message });
  }
  return messages;
}

/** The method to store: "by type" made explicit (so that it replaces private_key_jwt); undefined when the form had no such field. */
function chosenMethod(values: ClientFormValues): string | undefined {
  if (values.tokenEndpointAuthMethod !== '') return values.tokenEndpointAuthMethod;
  return values.confidential ? 'client_secret_basic' : 'none';
}

/** Too many, or the ones that cannot be registered; undefined when all is well. */
function redirectUrisMessage(uris: string[], t: Translate): string | undefined {
  const bad = uris.filter((u) => redirectUriProblem(u) !== undefined);
  if (uris.length > MAX_REDIRECT_URIS) return t('admin.error.redirectMany', { max: MAX_REDIRECT_URIS });
  if (bad.length > 0) return t('admin.error.redirectInvalid', { uris: bad.map((u) => t('admin.error.redirectQuoted', { uri: u.slice(0, 200) })).join(', ') });
  return undefined;
}

const SERVICE_FIELD_MESSAGES: Record<string, [string, string]> = {
  clientId: ['clientId', 'admin.error.clientIdTaken'],
  name: ['name', 'admin.error.nameMissing'],
  confidential: ['confidential', 'admin.error.invalid'],
  redirectUris: ['redirectUris', 'admin.error.invalid'],
  scopes: ['scopes', 'admin.error.scopes'],
  grantTypes: ['grantTypes', 'admin.error.grantTypes'],
  requiredRegions: ['requiredRegions', 'admin.error.regionUnknown'],
  postLogoutRedirectUris: ['postLogoutRedirectUris', 'admin.error.invalid'],
  backchannelLogoutUri: ['backchannelLogoutUri', 'admin.error.backchannelInvalid'],
  idTokenSignedResponseAlg: ['idTokenSignedResponseAlg', 'admin.error.signingAlg'],
  tokenEndpointAuthMethod: ['tokenEndpointAuthMethod', 'admin.error.authMethod'],
  jwks: ['jwks', 'admin.error.invalid'],
  jwksUri: ['jwksUri', 'admin.error.invalid'],
};

/**
 * The service's verdicts on what passed {@link checkClientForm}: a client id
 * already taken, a region that does not exist (the checks that need the
 * database). Keyed by field, never by message text.
 */
export function describeServiceErrors(errors: readonly FieldError[], t: Translate): FieldMessages {
  const messages: FieldMessages = {};
  for (const error of errors) {
    // A field without its own wording is still marked, as itself.
    const [field, key] = SERVICE_FIELD_MESSAGES[error.field] ?? [error.field, 'admin.error.invalid'];
    messages[field] ??= t(key);
  }
  return messages;
}
