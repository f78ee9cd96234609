/**
 * The app a page's `return_to` continues, to name it on the way there (the
 * login page, the second step of a step-up): the name it was registered with,
 * only for a request the client could have sent, so that no link made up
 * with a client's id, or a name, borrows it.
 */
import type { Executor } from '../../db/executor.ts';
import { isRegisteredRedirectUri } from '../checks/redirect-uri.ts';
import { hasLivePushedRequest } from '../pushed-authorization/pushed-requests.repository.ts';
import { requestUriDigest } from '../pushed-authorization/request-uri.ts';
import { AUTHORIZE_PATH } from '../step-up.ts';
import { findClientRow, type ClientRow } from './clients.repository.ts';

/**
 * The registered name of the client an authorization request in `returnTo` (a path of this server) is
 * for; null for an authorization request that is not one of a known client's (an unknown client, a
 * redirect URI it has not registered, a pushed request it has not made or that expired, a parameter
 * twice); undefined when `returnTo` is no authorization request.
 */
export async function requestingClientName(db: Executor, returnTo: string, publicUrl: string, now: Date): Promise<string | null | undefined> {
  const target = new URL(returnTo, publicUrl);
  if (target.pathname !== AUTHORIZE_PATH) return undefined;
  const params = target.searchParams;
  if (['client_id', 'redirect_uri', 'request_uri'].some((name) => params.getAll(name).length > 1)) return null;
  const clientId = params.get('client_id');
  const client = clientId === null || clientId.length > 200 ? undefined : await findClientRow(db, clientId);
  return client !== undefined && await isClientsOwn(db, client, params, now) ? client.name : null;
}

/** A live pushed request of the client's (by its reference), or else a redirect URI the client registered. */
async function isClientsOwn(db: Executor, client: ClientRow, params: URLSearchParams, now: Date): Promise<boolean> {
  const requestUri = params.get('request_uri');
  if (requestUri === null) return isRegisteredRedirectUri(client.redirect_uris, params.get('redirect_uri') ?? undefined, client);
  const digest = requestUriDigest(requestUri);
  return digest !== undefined && await hasLivePushedRequest(db, digest, client.id, now);
}
