/**
 * The checks of a logout request (OpenID Connect RP-Initiated Logout 1.0 §2,
 * §3). Nothing redirects until the client and its post-logout redirect URI
 * are trusted: an unregistered URI, one with anything appended, or one
 * without a way to name the client (`id_token_hint` or `client_id`, as
 * OmniAuth sends it) would make the server an open redirector. Such a URI is
 * dropped (§3: "MUST NOT perform post-logout redirection"), not the logout:
 * the member is asked as usual and ends on our own logged-out page. A hint or
 * client id that cannot be trusted is an error page.
 */
import type { Executor } from '../db/executor.ts';
import { checkParameters } from './checks/parameters.ts';
import { isRegisteredRedirectUri } from './checks/redirect-uri.ts';
import { CLIENT_ID_PATTERN } from './clients/client-id.ts';
import { findClientRow, type ClientRow } from './clients/clients.repository.ts';
import type { KeyStore } from './keys/key-store.ts';
import { verifyIdTokenHint, type IdTokenHint } from './tokens/id-token-hint.ts';

/** The parameters of RP-Initiated Logout 1.0 §2; others are ignored. */
export const END_SESSION_PARAMETERS = ['id_token_hint', 'logout_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales'] as const;

export interface EndSessionRequest {
  /** The client named by the hint's `aud` or by `client_id`, if any. */
  client: ClientRow | undefined;
  /** A valid ID token of ours (expired or not), if one was sent. */
  hint: IdTokenHint | undefined;
  /** Where the member goes afterwards: a URI registered for the client, exactly. */
  postLogoutRedirectUri: string | undefined;
  /** A `post_logout_redirect_uri` was sent but dropped: the member is asked, whatever the hint. */
  redirectDropped: boolean;
  state: string | undefined;
  /** The request's own parameters, posted back from the confirmation page. */
  parameters: Record<string, string>;
}

/** Why the request cannot be trusted: the page says it in the member's language (web/end-session/end-session.messages.ts). */
export type EndSessionPageReason = 'invalid_parameter' | 'client_id_mismatch' | 'invalid_id_token_hint' | 'invalid_client_id';

/** The request cannot be trusted: show a page, never redirect. `message` is the English text, for logs. */
export class EndSessionPageError extends Error {
  constructor(readonly status: number, readonly reason: EndSessionPageReason, message: string) {
    super(message);
  }
}

export interface EndSessionChecks {
  readonly db: Executor;
  readonly keys: Pick<KeyStore, 'verificationKey'>;
  readonly issuer: string;
}

/** Parses and checks a logout request; throws {@link EndSessionPageError}. */
export async function parseEndSessionRequest(ctx: EndSessionChecks, raw: Record<string, unknown>): Promise<EndSessionRequest> {
  const checked = checkParameters(raw, END_SESSION_PARAMETERS);
  if (!checked.ok) throw new EndSessionPageError(400, 'invalid_parameter', checked.error.description);
  const parameters = checked.value;
  const hint = await checkHint(ctx, parameters.id_token_hint);
  // §2: with both, the client id must be the one the ID token was issued to.
  if (hint && parameters.client_id !== undefined && parameters.client_id !== hint.clientId) {
    throw new EndSessionPageError(400, 'client_id_mismatch', 'client_id does not match the id_token_hint');
  }
  const client = await findNamedClient(ctx.db, hint?.clientId ?? parameters.client_id);
  if (hint && !client) throw new EndSessionPageError(400, 'invalid_id_token_hint', 'Invalid id_token_hint');
  const uri = parameters.post_logout_redirect_uri;
  // §3.1: exact match with a URI registered for that client; no client named, no redirect.
  if (uri !== undefined && !(client && isRegisteredRedirectUri(client.post_logout_redirect_uris, uri, client))) {
    const { post_logout_redirect_uri: _dropped, state: _unused, ...kept } = parameters;
    return { client, hint, postLogoutRedirectUri: undefined, redirectDropped: true, state: undefined, parameters: kept };
  }
  const state = parameters.state === '' ? undefined : parameters.state;
  return { client, hint, postLogoutRedirectUri: uri, redirectDropped: false, state, parameters };
}

async function checkHint(ctx: EndSessionChecks, token: string | undefined): Promise<IdTokenHint | undefined> {
  if (token === undefined) return undefined;
  const hint = await verifyIdTokenHint(ctx.keys, ctx.issuer, token);
  if (!hint) throw new EndSessionPageError(400, 'invalid_id_token_hint', 'Invalid id_token_hint');
  return hint;
}

/** The client a client id names; an id given but unknown is an error page. */
async function findNamedClient(db: Executor, clientId: string | undefined): Promise<ClientRow | undefined> {
  if (clientId === undefined) return undefined;
  const client = CLIENT_ID_PATTERN.test(clientId) ? await findClientRow(db, clientId) : undefined;
  if (!client) throw new EndSessionPageError(400, 'invalid_client_id', 'Invalid client_id');
  return client;
}
