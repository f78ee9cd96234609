/**
 * Client authentication at the token and revocation endpoints (RFC 6749
 * §2.3.1): `client_secret_basic` (credentials form-url-encoded before base64),
 * `client_secret_post`, or for public clients only `client_id` (`none`).
 * Using more than one method is an error.
 */
import { InvalidClient, InvalidRequest } from '../errors.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { isClientSecretValid } from './client-secret.ts';
import type { ClientLookup } from './client-cache.ts';
import type { ClientRow } from './clients.repository.ts';
import { CLIENT_ID_PATTERN } from './client-id.ts';

interface Credentials {
  clientId: string;
  secret: string | undefined;
  basic: boolean;
}

/** application/x-www-form-urlencoded decoding of one Basic credential part. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function readBasic(header: string): Credentials {
  const encoded = header.slice(6).trim();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (!/^[A-Za-z0-9+/]+=*$/.test(encoded) || colon < 0) throw malformedBasic();
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)), basic: true };
  } catch {
    throw malformedBasic();
  }
}

function readCredentials(authorization: string | undefined, body: Record<string, string | undefined>): Credentials {
  const basic = authorization !== undefined && /^basic /i.test(authorization) ? readBasic(authorization) : undefined;
  if (basic) {
    if (body.client_secret !== undefined) throw new InvalidRequest('Use only one client authentication method.');
    if (body.client_id !== undefined && body.client_id !== basic.clientId) throw new InvalidRequest('client_id does not match the HTTP Basic credentials.');
    return basic;
  }
  if (body.client_id === undefined || body.client_id === '') {
    throw new InvalidClient('Client authentication is required.', false).withDetail('no client credentials');
  }
  return { clientId: body.client_id, secret: body.client_secret, basic: false };
}

/** The authenticated client, or {@link InvalidClient}. One indexed query; the secret check is constant-time. */
export async function authenticateClient(find: ClientLookup, keys: KeyMaterial, authorization: string | undefined, body: Record<string, string | undefined>): Promise<ClientRow> {
  const credentials = readCredentials(authorization, body);
  // Only ids that could be registered reach the database (a NUL byte would make PostgreSQL fail).
  const possibleId = CLIENT_ID_PATTERN.test(credentials.clientId) ? credentials.clientId : null;
  const refuse = (description: string, detail: string) => new InvalidClient(description, credentials.basic, possibleId).withDetail(detail);
  const client = possibleId === null ? undefined : await find(possibleId);
  // One public answer for all three, so that client ids cannot be probed; the detail tells them apart.
  if (!client) throw refuse(WRONG_CREDENTIALS, possibleId === null ? 'malformed client id' : 'unknown client id');
  if (client.confidential) {
    if (credentials.secret === undefined) throw refuse(WRONG_CREDENTIALS, 'confidential client sent no secret');
    if (!isClientSecretValid(keys, client.secret_digest, credentials.secret)) throw refuse(WRONG_CREDENTIALS, 'wrong client secret');
  } else if (credentials.secret !== undefined && credentials.secret !== '') {
    throw refuse('A public client has no secret.', 'public client sent a secret');
  }
  return client;
}

const WRONG_CREDENTIALS = 'Unknown client or wrong credentials.';

function malformedBasic(): InvalidClient {
  return new InvalidClient('Malformed HTTP Basic credentials.', true).withDetail('malformed HTTP Basic credentials');
}
