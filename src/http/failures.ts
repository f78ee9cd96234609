/**
 * Classifies a thrown error into a status the client may see, without ever
 * exposing the cause of a 5xx (SPEC §7). Shared by the three error vocabularies.
 */
import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { DATABASE_UNAVAILABLE } from '../db/unavailable.ts';

const DATABASE_DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND',
  '08000', '08001', '08003', '08006', '57P01', '57P02', '57P03', '53300',
  DATABASE_UNAVAILABLE, // pg's code-less connection errors, tagged by src/db/unavailable.ts
]);

export interface Failure {
  status: number;
  /** Safe to show: a client-side error's message, or a generic one. */
  message: string;
  /** Whether this is our fault and must be logged with its stack. */
  isServerFault: boolean;
  /** The client went away while its request was being read: nobody to answer, nothing wrong here. */
  isClientAbort?: boolean;
}

/** Codes of a connection the client closed. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE']);

export function classifyFailure(error: unknown): Failure {
  const e = error as Partial<FastifyError> & { code?: string };
  // Reading the request body failed because the client closed the connection (Node's "aborted",
  // given a 4xx status by Fastify's body parser); the same codes from the database have no status.
  if (typeof e.code === 'string' && CLIENT_GONE_CODES.has(e.code) && typeof e.statusCode === 'number' && e.statusCode < 500) {
    return { status: 400, message: 'The request was aborted.', isServerFault: false, isClientAbort: true };
  }
  if (typeof e.code === 'string' && DATABASE_DOWN_CODES.has(e.code)) {
    return { status: 503, message: 'The service is temporarily unavailable. Please try again shortly.', isServerFault: true };
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    return { status, message: clientMessage(e, status), isServerFault: false };
  }
  return { status: 500, message: 'An unexpected error occurred.', isServerFault: true };
}

function clientMessage(e: Partial<FastifyError>, status: number): string {
  switch (status) {
    case 413: return 'The request body is too large.';
    case 415: return 'Unsupported content type.';
    case 403: return 'Access to this resource is forbidden.';
    case 404: return 'Not found.';
    case 429: return 'Too many requests. Please slow down.';
    default:
      // Fastify's own 4xx errors (FST_*) and JSON syntax errors describe the input, not our internals.
      return typeof e.code === 'string' && e.code.startsWith('FST_') && e.message ? e.message : 'The request is malformed.';
  }
}

/** Our faults at error level with the stack; a client that went away at info; other client errors not at all. */
export function logFailure(log: FastifyBaseLogger, error: unknown, failure: Failure): void {
  if (failure.isServerFault) log.error({ err: error }, 'request failed');
  else if (failure.isClientAbort) log.info({ code: (error as { code?: string }).code }, 'client aborted the request');
}
