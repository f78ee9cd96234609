/**
 * Requests Node's HTTP parser refuses before Fastify sees them: an unknown
 * method (`FOO /api/baskets/1`), raw non-ASCII bytes in the path, oversized
 * headers, a request that never finishes. Fastify's default answer is a
 * plain JSON object; a prefix with its own vocabulary (`/api`: problem+json,
 * SPEC §7) words it when the request line names a path under that prefix.
 * Only the raw bytes are known here: no route, no session, no request id of
 * Fastify's. A request that timed out carries no bytes: its target is the one
 * Node parsed when its headers were complete (a body that never finished);
 * when even the headers never completed, Node has not exposed the request
 * line, and the answer is the plain JSON object.
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance } from 'fastify';
import type { PrefixErrorWording } from './prefix-errors.ts';
import type { SecurityHeaders } from './security-headers.ts';

interface ClientFailure { status: number; detail: string }

type ClientErrorHandler = (this: FastifyInstance, error: ConnectionError, socket: Socket) => void;

/** Fastify's `clientErrorHandler`: plain JSON, or `prefixed`'s wording for a request line under its prefix. */
export function clientErrorHandler(prefixed: PrefixErrorWording, headers: SecurityHeaders): ClientErrorHandler {
  const securityLines = Object.entries(headers.json).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return function handleClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
    answerClientError(this, prefixed, securityLines, error, socket);
  };
}

function answerClientError(app: FastifyInstance, prefixed: PrefixErrorWording, securityLines: string, error: ConnectionError, socket: Socket): void {
  // The peer is gone: nobody to answer. Routine on the internet, so info, never error.
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    app.log.info({ code: error.code }, 'client closed the connection');
    return;
  }
  const failure = classifyClientError(error.code);
  const requestId = randomUUID();
  // A slow client cut off (server-timeouts.ts) is worth seeing; malformed HTTP is noise.
  if (failure.status === 408) app.log.info({ code: error.code, requestId }, 'request timed out: closing the connection');
  // Never the error itself: its `rawPacket` holds the request's bytes, cookies, Authorization and body included.
  else app.log.debug({ code: error.code, reason: error.message, requestId }, 'client error');
  if (socket.writable) {
    const own = isRequestLineUnder(error.rawPacket as unknown, prefixed.prefix) || isTargetUnder(parsedTarget(socket), prefixed.prefix);
    const body = own
      ? JSON.stringify(prefixed.body(failure.status, failure.detail))
      : JSON.stringify({ error: STATUS_CODES[failure.status], message: failure.detail, statusCode: failure.status });
    socket.write(`HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\n`
      + `Content-Type: ${own ? prefixed.contentType : 'application/json'}; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\n${securityLines}x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
}

export function classifyClientError(code: string | undefined): ClientFailure {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'The request took too long to arrive.' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'The request headers are too large.' };
    case 'HPE_INVALID_METHOD':
      return { status: 400, detail: 'The request method is not an HTTP method.' };
    case 'HPE_INVALID_URL':
      return { status: 400, detail: 'The request target is not a valid URL (percent-encode non-ASCII characters).' };
    default:
      return { status: 400, detail: 'The request is not valid HTTP.' };
  }
}

/** Whether the bytes received start with a request line whose target is under `prefix` (origin or absolute form). */
export function isRequestLineUnder(rawPacket: unknown, prefix: string): boolean {
  if (!Buffer.isBuffer(rawPacket)) return false;
  const firstLine = rawPacket.subarray(0, 8192).toString('latin1').split(/\r?\n/, 1)[0] ?? '';
  return isTargetUnder(firstLine.split(' ')[1], prefix);
}

/** The target of the request whose headers Node's parser completed on this socket (its body still arriving), if any. */
function parsedTarget(socket: Socket): string | undefined {
  const { parser } = socket as Socket & { parser?: { incoming?: { url?: unknown } | null } | null };
  const url = parser?.incoming?.url;
  return typeof url === 'string' ? url : undefined;
}

function isTargetUnder(target: string | undefined, prefix: string): boolean {
  const path = (target ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  return path === prefix || (path.startsWith(prefix) && '/?#'.includes(path.charAt(prefix.length)));
}
