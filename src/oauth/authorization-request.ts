/**
 * Steps 1–3 of the authorization endpoint (SPEC §5.2), in that order. Until
 * the client and its redirect URI are trusted, errors are pages (never a
 * redirect: RFC 6749 §4.1.2.1, RFC 9700 §4.1); afterwards they go back to the
 * client's redirect URI.
 */
import { toLocation } from '../http/location.ts';
import type { Executor } from '../db/executor.ts';
import { isValidS256Challenge } from './checks/pkce.ts';
import { checkRequestedScopes } from './checks/scope.ts';
import { findClientRow, type ClientRow } from './clients/clients.repository.ts';
import { CLIENT_ID_PATTERN } from './clients/client-id.ts';
import {
  InvalidRequest, InvalidScope, RequestNotSupported, RequestUriNotSupported, UnsupportedResponseType, type OAuthError,
} from './errors.ts';
import type { Scope } from './scopes.ts';

/**
 * Ours, not OpenID's: added to a request sent to /login for a fresh login
 * (`prompt=login`, `max_age`), it says that a login at or after this time
 * (Unix seconds) satisfies the request when it comes back.
 */
export const LOGIN_AFTER_PARAMETER = 'login_after';

/** The parameters an authorization request may carry; others are ignored (RFC 6749 §3.1). */
export const AUTHORIZATION_PARAMETERS = [
  'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method',
  'nonce', 'prompt', 'max_age', 'response_mode', 'login_hint', 'ui_locales', 'request', 'request_uri',
  LOGIN_AFTER_PARAMETER,
] as const;
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
const MAX_PARAMETER_LENGTH = 2048;

export type RawParameters = Record<string, unknown>;

export interface AuthorizationRequest {
  client: ClientRow;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string | null;
  nonce: string | null;
  prompt: ReadonlySet<string>;
  maxAge: number | undefined;
  /** See {@link LOGIN_AFTER_PARAMETER}; undefined when absent or malformed. */
  loginAfter: number | undefined;
  /** The request's own parameters, to re-send it after login or from the consent form. */
  parameters: Record<string, string>;
}

/** Steps 1–2 failed: show a page, never redirect. */
export class AuthorizationPageError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Step 3 onwards: send the error to the (trusted) redirect URI. */
export class AuthorizationRedirectError extends Error {
  constructor(readonly redirectUri: string, readonly state: string | undefined, readonly error: OAuthError) {
    super(error.description);
  }
}

/** Parses and checks a request; throws {@link AuthorizationPageError} or {@link AuthorizationRedirectError}. */
export async function parseAuthorizationRequest(db: Executor, raw: RawParameters): Promise<AuthorizationRequest> {
  const clientId = raw.client_id;
  // Only ids that could be registered reach the database (a NUL byte would make PostgreSQL fail).
  if (typeof clientId !== 'string' || !CLIENT_ID_PATTERN.test(clientId)) {
    throw new AuthorizationPageError(400, 'Invalid client_id');
  }
  const client = await findClientRow(db, clientId);
  if (!client) throw new AuthorizationPageError(400, 'Invalid client_id');
  const redirectUri = raw.redirect_uri;
  if (typeof redirectUri !== 'string' || !client.redirect_uris.includes(redirectUri)) {
    throw new AuthorizationPageError(400, 'Invalid redirect_uri');
  }

  const state = typeof raw.state === 'string' && raw.state !== '' ? raw.state : undefined;
  const fail = (error: OAuthError): never => {
    throw new AuthorizationRedirectError(redirectUri, state, error);
  };
  const parameters: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = raw[name];
    if (value === undefined) continue;
    // RFC 6749 §3.1: parameters must not be repeated.
    if (typeof value !== 'string') fail(new InvalidRequest(`The parameter ${name} must be given once.`));
    if ((value as string).length > MAX_PARAMETER_LENGTH) fail(new InvalidRequest(`The parameter ${name} is too long.`));
    // PostgreSQL text cannot hold NUL (the nonce is stored with the code).
    if ((value as string).includes('\u0000')) fail(new InvalidRequest(`The parameter ${name} contains a NUL character.`));
    parameters[name] = value as string;
  }
  if (parameters.request !== undefined) fail(new RequestNotSupported('Request objects are not supported.'));
  if (parameters.request_uri !== undefined) fail(new RequestUriNotSupported('request_uri is not supported.'));
  if (parameters.response_type === undefined) fail(new InvalidRequest('response_type is required.'));
  if (parameters.response_type !== 'code') fail(new UnsupportedResponseType('Only response_type=code is supported.'));
  if (parameters.response_mode !== undefined && parameters.response_mode !== 'query') {
    fail(new InvalidRequest('Only response_mode=query is supported.'));
  }

  const scopeCheck = checkRequestedScopes(parameters.scope, client.scopes);
  if (!scopeCheck.ok) fail(new InvalidScope(scopeCheck.description));

  const method = parameters.code_challenge_method;
  const challenge = parameters.code_challenge;
  if (method !== undefined && method !== 'S256') fail(new InvalidRequest('code_challenge_method must be S256.'));
  if (challenge === undefined && !client.confidential) fail(new InvalidRequest('Code challenge required'));
  if (challenge !== undefined && method === undefined) fail(new InvalidRequest('code_challenge_method must be S256.'));
  if (challenge === undefined && method !== undefined) fail(new InvalidRequest('code_challenge is missing.'));
  if (challenge !== undefined && !isValidS256Challenge(challenge)) fail(new InvalidRequest('code_challenge is malformed.'));

  const prompt = new Set((parameters.prompt ?? '').split(' ').filter((p) => p !== ''));
  if ([...prompt].some((p) => !PROMPTS.has(p))) fail(new InvalidRequest('Unknown prompt value.'));
  if (prompt.has('none') && prompt.size > 1) fail(new InvalidRequest('prompt=none cannot be combined with other values.'));
  let maxAge: number | undefined;
  if (parameters.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(parameters.max_age)) fail(new InvalidRequest('max_age must be a whole number of seconds.'));
    maxAge = Number(parameters.max_age);
  }
  if (parameters.nonce !== undefined && parameters.nonce.length > 512) fail(new InvalidRequest('nonce is too long.'));

  return {
    client,
    redirectUri,
    state,
    scopes: scopeCheck.ok ? scopeCheck.scopes : [],
    codeChallenge: challenge ?? null,
    nonce: parameters.nonce !== undefined && parameters.nonce !== '' ? parameters.nonce : null,
    prompt,
    maxAge,
    loginAfter: /^\d{1,12}$/.test(parameters.login_after ?? '') ? Number(parameters.login_after) : undefined,
    parameters,
  };
}

/**
 * The client's redirect URI with response parameters added to its query (RFC 6749 §4.1.2, RFC 9207),
 * as an ASCII URI reference for the Location header (a registered URI may hold non-ASCII characters).
 */
export function responseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return toLocation(`${redirectUri}${separator}${query}`);
}
