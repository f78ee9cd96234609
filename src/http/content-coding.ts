/**
 * Request bodies are read as sent: no content coding is decoded. A body
 * labelled `Content-Encoding: gzip` (or any coding) was read as if it were
 * not coded — a labelled-but-plain body was accepted, a really compressed one
 * refused as broken text. RFC 9110 §8.4 and §15.5.16: a coding the server does
 * not support is a 415, with `Accept-Encoding` saying what it takes
 * (§12.5.3). `identity` (no coding) is accepted, as is the header on a
 * request without a body.
 */
import type { IncomingHttpHeaders } from 'node:http';

export const UNSUPPORTED_CONTENT_CODING = 'CONTENT_CODING_UNSUPPORTED';

export class UnsupportedContentCoding extends Error {
  readonly statusCode = 415;
  readonly code = UNSUPPORTED_CONTENT_CODING;
  /** What the server accepts instead, for the answer's `Accept-Encoding` header. */
  static readonly accepted = 'identity';
  constructor() {
    super('Content-Encoding is not supported: send the request body uncompressed, without a Content-Encoding header.');
    this.name = 'UnsupportedContentCoding';
  }
}

/** The refusal for a request whose body is content-coded, or undefined. */
export function unsupportedContentCoding(headers: IncomingHttpHeaders): UnsupportedContentCoding | undefined {
  const coding = headers['content-encoding'];
  if (coding === undefined || !hasBody(headers)) return undefined;
  const codings = coding.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '');
  return codings.every((c) => c === 'identity') ? undefined : new UnsupportedContentCoding();
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
