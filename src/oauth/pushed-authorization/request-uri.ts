/**
 * The `request_uri` of a pushed authorization request (RFC 9126 §2.2): a URN
 * under `urn:ietf:params:oauth:request_uri:` ending in 256 random bits
 * (base64url). Only the SHA-256 digest of the random part is stored.
 */
import { createHash, randomBytes } from 'node:crypto';

export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
const REFERENCE = /^[A-Za-z0-9_-]{43}$/;

export interface RequestReference {
  readonly requestUri: string;
  readonly digest: Buffer;
}

/** A fresh reference: the URI handed out, the digest stored. */
export function newRequestReference(): RequestReference {
  const random = randomBytes(32).toString('base64url');
  return { requestUri: `${REQUEST_URI_PREFIX}${random}`, digest: digestReference(random) };
}

/** The stored digest a presented `request_uri` would have; undefined when it cannot be one of ours. */
export function requestUriDigest(requestUri: unknown): Buffer | undefined {
  if (typeof requestUri !== 'string' || !requestUri.startsWith(REQUEST_URI_PREFIX)) return undefined;
  const random = requestUri.slice(REQUEST_URI_PREFIX.length);
  return REFERENCE.test(random) ? digestReference(random) : undefined;
}

function digestReference(random: string): Buffer {
  return createHash('sha256').update(random).digest();
}
