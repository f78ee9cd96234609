/**
 * Pushed authorization requests (RFC 9126) and their continuations. A pushed
 * request lives 60 seconds and is taken once, at the authorization endpoint's
 * first use of its `request_uri`. When the member must still log in or
 * consent, what was taken is stored again under a fresh one-time reference
 * (a continuation) that only this browser receives, in the login's return_to
 * or the consent form; each step takes it and, if another round trip is
 * needed, stores the next one. The parameters never return to the front
 * channel, so they cannot be altered there (docs/oauth.md, docs/security.md).
 */
import type { Executor } from '../../db/executor.ts';
import { clientChangedDuringRequest } from '../clients/client-cache.ts';
import type { ClientRow } from '../clients/clients.repository.ts';
import { PUSHED_CONTINUATION_SECONDS, PUSHED_REQUEST_SECONDS } from '../lifetimes.ts';
import { insertPushedRequest, takePushedRequest } from './pushed-requests.repository.ts';
import { newRequestReference, requestUriDigest } from './request-uri.ts';

/** Stores a checked request for `seconds`; the `request_uri` that names it. */
async function storeRequest(db: Executor, client: ClientRow, parameters: Readonly<Record<string, string>>, now: Date, seconds: number): Promise<string> {
  const reference = newRequestReference();
  const stored = await insertPushedRequest(db, {
    digest: reference.digest, clientRowId: client.id, clientVersion: client.version, parameters, expiresAt: new Date(now.getTime() + seconds * 1000),
  });
  if (!stored) throw clientChangedDuringRequest();
  return reference.requestUri;
}

/** RFC 9126 §2.2: the request is stored; the client gets its `request_uri` and lifetime. */
export async function pushRequest(db: Executor, client: ClientRow, parameters: Readonly<Record<string, string>>, now: Date): Promise<{ request_uri: string; expires_in: number }> {
  return { request_uri: await storeRequest(db, client, parameters, now, PUSHED_REQUEST_SECONDS), expires_in: PUSHED_REQUEST_SECONDS };
}

/** The front-channel parameters that continue a taken request after the next round trip: `client_id` and a fresh `request_uri`. */
export async function continueRequest(db: Executor, client: ClientRow, parameters: Readonly<Record<string, string>>, now: Date): Promise<Record<string, string>> {
  return { client_id: client.client_id, request_uri: await storeRequest(db, client, parameters, now, PUSHED_CONTINUATION_SECONDS) };
}

/** The parameters a live reference of this client names, taken (RFC 9126 §4); undefined otherwise. */
export async function takeRequest(db: Executor, client: ClientRow, requestUri: unknown, now: Date): Promise<Record<string, string> | undefined> {
  const digest = requestUriDigest(requestUri);
  return digest === undefined ? undefined : takePushedRequest(db, digest, client.id, now);
}
