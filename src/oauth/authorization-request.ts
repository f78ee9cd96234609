/**
 * Steps 1–3 of the authorization endpoint (SPEC §5.2), in that order. Until
 * the client and its redirect URI are trusted, errors are pages (never a
 * redirect: RFC 6749 §4.1.2.1, RFC 9700 §4.1); afterwards they go back to the
 * client's redirect URI.
 */
import { toLocation } from '../http/location.ts';
import type { Checked } from './checks/check.ts';
import { checkDpopJkt } from './checks/dpop-jkt.ts';
import { checkRequestedAcr } from './checks/acr.ts';
import { checkClaimedSubject } from './checks/claimed-subject.ts';
import { checkIdTokenHint, idTokenHintOf } from './checks/id-token-hint.ts';
import { checkMaxAge } from './checks/max-age.ts';
import { checkNonce } from './checks/nonce.ts';
import { checkParameters } from './checks/parameters.ts';
import { checkCodeChallenge } from './checks/pkce.ts';
import { checkPrompt } from './checks/prompt.ts';
import { isRegisteredRedirectUri } from './checks/redirect-uri.ts';
import { checkRequestObject } from './checks/request-object.ts';
import { checkResponseType } from './checks/response-type.ts';
import { checkRequestedScopes } from './checks/scope.ts';
import type { ClientLookup } from './clients/client-cache.ts';
import type { ClientRow } from './clients/clients.repository.ts';
import { CLIENT_ID_PATTERN } from './clients/client-id.ts';
import { InvalidRequest, type OAuthError } from './errors.ts';
import type { KeyStore } from './keys/key-store.ts';
import type { Scope } from './scopes.ts';
import { verifyIdTokenHint } from './tokens/id-token-hint.ts';

/**
 * Ours, not OpenID's: added to a request sent to /login for a fresh login
 * (`prompt=login`, `max_age`), it says that a login at or after this time
 * (Unix seconds) satisfies the request when it comes back. The server MACs
 * it (oauth/login-marker.ts): a marker written by anyone else counts as none.
 */
export const LOGIN_AFTER_PARAMETER = 'login_after';

/** The parameters an authorization request may carry; others are ignored (RFC 6749 §3.1). */
export const AUTHORIZATION_PARAMETERS = [
  'response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method',
  'nonce', 'prompt', 'max_age', 'response_mode', 'login_hint', 'ui_locales', 'request', 'request_uri', 'dpop_jkt',
  'acr_values', 'claims', 'id_token_hint', LOGIN_AFTER_PARAMETER,
] as const;

export type RawParameters = Record<string, unknown>;

/** A POSTed form's fields (anything but an object counts as none). */
export function formParameters(body: unknown): RawParameters {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? body as RawParameters : {};
}

export interface AuthorizationRequest {
  client: ClientRow;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string | null;
  nonce: string | null;
  /** RFC 9449 §10: the DPoP key the code is bound to, or null. */
  dpopJkt: string | null;
  prompt: ReadonlySet<string>;
  maxAge: number | undefined;
  /** `acr_values` or an `acr` claim (checks/acr.ts): the levels asked for, in the client's order; undefined: none. */
  acr: readonly string[] | undefined;
  /** Whether a level of {@link acr} must be met (`acr_values`, an essential claim), or is only preferred (a voluntary claim). */
  acrRequired: boolean;
  /** See {@link LOGIN_AFTER_PARAMETER}, as sent; verified by oauth/login-marker.ts. */
  loginMarker: string | undefined;
  /**
   * The member the client expects: the `sub` value of the `claims` parameter's
   * ID token (checks/claimed-subject.ts), or of the request's verified
   * `id_token_hint`, set by {@link checkHintedMember} (the synchronous
   * {@link checkAuthorizationRequest} cannot verify it); undefined without either.
   */
  hintedSubject: string | undefined;
  /** The request's own parameters, to re-send it after login or from the consent form. */
  parameters: Record<string, string>;
  /** It came by `request_uri` (RFC 9126): its parameters continue server-side, never in the front channel. */
  pushed: boolean;
}

/** Why steps 1–2 failed: the page says it in the member's language (web/consent/consent.messages.ts). */
export type AuthorizationPageReason = 'invalid_client_id' | 'invalid_redirect_uri' | 'invalid_request_uri' | 'pushed_request_required' | 'invalid_request_body';

/** Steps 1–2 failed: show a page, never redirect. `message` is the English text, for JSON answers and logs. */
export class AuthorizationPageError extends Error {
  constructor(readonly status: number, readonly reason: AuthorizationPageReason, message: string) {
    super(message);
  }
}

/** Step 3 onwards: send the error to the (trusted) redirect URI. */
export class AuthorizationRedirectError extends Error {
  constructor(readonly redirectUri: string, readonly state: string | undefined, readonly error: OAuthError) {
    super(error.description);
  }
}

/** What verifies an `id_token_hint`: the server's keys and issuer. */
export interface HintVerification {
  readonly keys: Pick<KeyStore, 'verificationKey'>;
  readonly issuer: string;
}

/** How the request reached the endpoint: what RFC 9126 asks of it. */
export interface RequestSource {
  /** Takes the pushed request (or continuation) a `request_uri` names, for this client; undefined when none is live. */
  takePushed(client: ClientRow, requestUri: unknown): Promise<RawParameters | undefined>;
  /** REQUIRE_PUSHED_AUTHORIZATION_REQUESTS: every client must push its requests. */
  requirePushed: boolean;
}

/**
 * Parses and checks a request; throws {@link AuthorizationPageError} or {@link AuthorizationRedirectError}.
 * With `request_uri`, the pushed parameters replace those of the front channel (RFC 9126 §4).
 */
export async function parseAuthorizationRequest(
  findClient: ClientLookup, raw: RawParameters, source: RequestSource, hints: HintVerification,
): Promise<AuthorizationRequest> {
  const client = await findRequestingClient(findClient, raw.client_id);
  if (raw.request_uri !== undefined) {
    const pushed = await source.takePushed(client, raw.request_uri);
    // RFC 9126 §4: the redirect URI of an unknown request is not known, so a page, not a redirect.
    if (!pushed) throw new AuthorizationPageError(400, 'invalid_request_uri', 'Invalid or expired request_uri');
    return checkHintedMember({ ...checkAuthorizationRequest(client, { ...pushed, client_id: client.client_id }), pushed: true }, hints);
  }
  // RFC 9126 §5, §6: a request that should have been pushed could have been tampered with: not trusted to redirect.
  if (source.requirePushed || client.require_pushed_authorization_requests) throw new AuthorizationPageError(400, 'pushed_request_required', PUSHED_REQUEST_REQUIRED);
  return checkHintedMember(checkAuthorizationRequest(client, raw), hints);
}

export const PUSHED_REQUEST_REQUIRED = 'Pushed authorization request required';

/**
 * Steps 2–3 for a known client (also the checks of a pushed request, RFC 9126
 * §2.1), but for the `id_token_hint`, which needs a key: {@link checkHintedMember}
 * follows. Throws {@link AuthorizationPageError} or {@link AuthorizationRedirectError}.
 */
export function checkAuthorizationRequest(client: ClientRow, raw: RawParameters): AuthorizationRequest {
  const redirectUri = raw.redirect_uri;
  if (!isRegisteredRedirectUri(client.redirect_uris, redirectUri, client)) throw new AuthorizationPageError(400, 'invalid_redirect_uri', 'Invalid redirect_uri');

  // Step 3: the checks in this order; the first refusal goes back to the client.
  const state = typeof raw.state === 'string' && raw.state !== '' ? raw.state : undefined;
  const take = <T>(checked: Checked<T>): T => {
    if (!checked.ok) throw new AuthorizationRedirectError(redirectUri, state, checked.error);
    return checked.value;
  };
  const parameters = take(checkParameters(raw, AUTHORIZATION_PARAMETERS));
  take(checkRequestObject(parameters));
  take(checkResponseType(parameters));
  const scopes = take(checkRequestedScopes(parameters.scope, client.scopes));
  const codeChallenge = take(checkCodeChallenge(parameters, client.confidential));
  const prompt = take(checkPrompt(parameters));
  const maxAge = take(checkMaxAge(parameters));
  const nonce = take(checkNonce(parameters));
  const dpopJkt = take(checkDpopJkt(parameters));
  const requestedAcr = take(checkRequestedAcr(parameters));
  const claimedSubject = take(checkClaimedSubject(parameters));
  const loginMarker = parameters.login_after;
  return {
    client, redirectUri, state, scopes, codeChallenge, nonce, dpopJkt, prompt, maxAge, acr: requestedAcr?.values, acrRequired: requestedAcr?.required ?? false,
    loginMarker, hintedSubject: claimedSubject, parameters, pushed: false,
  };
}

/**
 * Step 3's last check, OpenID Connect Core §3.1.2.1: the `id_token_hint`, verified as
 * the end-session endpoint verifies its own; a hint that does not verify or names
 * another client goes back to the client as `invalid_request`.
 */
export async function checkHintedMember(req: AuthorizationRequest, hints: HintVerification): Promise<AuthorizationRequest> {
  const hint = idTokenHintOf(req.parameters);
  if (hint === undefined) return req;
  const checked = checkIdTokenHint(await verifyIdTokenHint(hints.keys, hints.issuer, hint), req.client.client_id);
  if (!checked.ok) throw new AuthorizationRedirectError(req.redirectUri, req.state, checked.error);
  if (req.hintedSubject !== undefined && req.hintedSubject !== checked.value) {
    throw new AuthorizationRedirectError(req.redirectUri, req.state, new InvalidRequest(HINT_AND_CLAIM_DIFFER));
  }
  return { ...req, hintedSubject: checked.value };
}

export const HINT_AND_CLAIM_DIFFER = 'The id_token_hint and the sub value of the claims parameter name different members.';

/** Step 1: a registered client, or the error page. */
async function findRequestingClient(findClient: ClientLookup, clientId: unknown): Promise<ClientRow> {
  // Only ids that could be registered reach the database (a NUL byte would make PostgreSQL fail).
  const client = typeof clientId === 'string' && CLIENT_ID_PATTERN.test(clientId) ? await findClient(clientId) : undefined;
  if (!client) throw new AuthorizationPageError(400, 'invalid_client_id', 'Invalid client_id');
  return client;
}

/**
 * The client's redirect URI with response parameters added to its query (RFC 6749 §4.1.2, RFC 9207),
 * as an ASCII URI reference for the Location header (a registered URI may hold non-ASCII characters).
 */
export function responseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  if (query === '') return toLocation(redirectUri);
  const separator = !redirectUri.includes('?') ? '?' : /[?&]$/.test(redirectUri) ? '' : '&';
  return toLocation(`${redirectUri}${separator}${query}`);
}
