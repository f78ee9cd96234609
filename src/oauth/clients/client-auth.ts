/**
 * Client authentication at the token and revocation endpoints (RFC 6749
 * §2.3.1): `client_secret_basic` (credentials form-url-encoded before base64),
 * `client_secret_post`, `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core
 * 1.0 §9), or for public clients only `client_id` (`none`). Each client uses
 * the method family it registered; using more than one method is an error.
 */
import { decodeJwt } from 'jose';
import { InvalidClient, InvalidRequest } from '../errors.ts';
import type { KeyMaterial } from '../keys/key-material.ts';
import { AssertionRefused, JWT_BEARER_ASSERTION_TYPE } from './client-assertion.ts';
import { isClientSecretValid } from './client-secret.ts';
import type { ClientLookup } from './client-cache.ts';
import type { ClientRow } from './clients.repository.ts';
import { CLIENT_ID_PATTERN } from './client-id.ts';

interface Credentials {
  clientId: string;
  secret: string | undefined;
  basic: boolean;
  assertion?: string;
}

/** Checks a client assertion for the endpoint at hand (client-assertion.ts); throws AssertionRefused. */
export type AssertionCheck = (client: ClientRow, assertion: string) => Promise<void>;

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
  if (body.client_assertion_type !== undefined || body.client_assertion !== undefined) return readAssertion(authorization, body);
  const basic = authorization !== undefined && /^basic(?:\s|$)/i.test(authorization) ? readBasic(authorization) : undefined;
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

/** RFC 7521 §4.2: the client id is the assertion's subject (checked with the signature later). */
function readAssertion(authorization: string | undefined, body: Record<string, string | undefined>): Credentials {
  if (authorization !== undefined && /^basic(?:\s|$)/i.test(authorization) || body.client_secret !== undefined) {
    throw new InvalidRequest('Use only one client authentication method.');
  }
  if (body.client_assertion_type !== JWT_BEARER_ASSERTION_TYPE) throw new InvalidClient(`client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}.`, false).withDetail('unsupported client_assertion_type');
  const assertion = body.client_assertion ?? '';
  let subject: unknown;
  try {
    subject = decodeJwt(assertion).sub;
  } catch {
    throw new InvalidClient('The client assertion is not a JWT.', false).withDetail('malformed client assertion');
  }
  if (typeof subject !== 'string') throw new InvalidClient('The client assertion has no sub.', false).withDetail('client assertion without sub');
  if (body.client_id !== undefined && body.client_id !== subject) throw new InvalidClient('client_id does not match the client assertion.', false).withDetail('client_id differs from the assertion\'s sub');
  return { clientId: subject, secret: undefined, basic: false, assertion };
}

/**
 * The authenticated client, or {@link InvalidClient}. One indexed query; the
 * secret check is constant-time; `checkAssertion` verifies a private_key_jwt
 * client's assertion for this endpoint.
 */
export async function authenticateClient(
  find: ClientLookup, keys: KeyMaterial, authorization: string | undefined, body: Record<string, string | undefined>, checkAssertion: AssertionCheck,
): Promise<ClientRow> {
  const credentials = readCredentials(authorization, body);
  // Only ids that could be registered reach the database (a NUL byte would make PostgreSQL fail).
  const possibleId = CLIENT_ID_PATTERN.test(credentials.clientId) ? credentials.clientId : null;
  const refuse = (description: string, detail: string) => new InvalidClient(description, credentials.basic, possibleId).withDetail(detail);
  const client = possibleId === null ? undefined : await find(possibleId);
  // One public answer for all three, so that client ids cannot be probed; the detail tells them apart.
  if (!client) throw refuse(WRONG_CREDENTIALS, possibleId === null ? 'malformed client id' : 'unknown client id');
  if (client.token_endpoint_auth_method === 'private_key_jwt') {
    if (credentials.assertion === undefined) throw refuse(WRONG_CREDENTIALS, 'private_key_jwt client sent no client assertion');
    await checkAssertion(client, credentials.assertion).catch((error: unknown) => {
      throw refuse(WRONG_CREDENTIALS, error instanceof AssertionRefused ? `client assertion refused: ${error.message}` : 'client assertion refused');
    });
  } else if (credentials.assertion !== undefined) {
    throw refuse(WRONG_CREDENTIALS, 'client not registered for private_key_jwt sent a client assertion');
  } else if (client.confidential) {
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
