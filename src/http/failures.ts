/**
 * Classifies a thrown error into a status the client may see, without ever
 * exposing the cause of a 5xx (SPEC §7). Shared by the three error vocabularies.
 */
import type { FastifyBaseLogger, FastifyError } from 'fastify';
import { DATABASE_UNAVAILABLE } from '../db/unavailable.ts';
import { MALFORMED_FORM_BODY } from './form-body.ts';
import { UNSUPPORTED_CONTENT_CODING } from './content-coding.ts';

const DATABASE_DOWN_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND',
  // SQLSTATE: connection exceptions (class 08, but 08P01, a protocol violation: ours), too many
  // connections (53300), operator intervention (57P: shutting down, cannot connect now, database
  // dropped), and a write on a database that failed over to a standby (25006, read-only transaction).
  '08000', '08001', '08003', '08004', '08006', '08007', '53300',
  '57P01', '57P02', '57P03', '57P04', '25006',
  DATABASE_UNAVAILABLE, // connection failures, tagged by src/db/unavailable.ts
]);

/**
 * The database is there but out of resources (disk full, out of memory): 503, and an operator must act
 * (logged as a fault). Or it aborted the transaction to end a deadlock or a serialization failure
 * (40P01, 40001): the same request sent again can succeed, so 503 "try again" rather than a bare 500,
 * still logged as a fault, since every lock order here is meant to rule it out.
 */
const DATABASE_TROUBLE_CODES = new Set(['53000', '53100', '53200', '40P01', '40001']);

/**
 * A write that named a member the moment the member was deleted (the triggers of migrations 073 and 074): nothing was
 * written, and the member is gone. Said as a conflict with the state of the member; the same request sent
 * again gets the answer for a deleted member (their session is gone, or the member not found).
 */
const MEMBER_DELETED_CODE = 'FS409';
export const MEMBER_DELETED_MESSAGE = 'The member this request names was deleted at the same moment; nothing was written.';

export interface Failure {
  status: number;
  /** Safe to show: a client-side error's message, or a generic one. */
  message: string;
  /** Whether this is our fault and must be logged with its stack. */
  isServerFault: boolean;
  /** The client went away while its request was being read: nobody to answer, nothing wrong here. */
  isClientAbort?: boolean;
  /** The database cannot be reached: the same for every request while it lasts, logged without a stack. */
  isDatabaseDown?: boolean;
}

/** Codes of a connection the client closed. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE']);

/** The server is shutting down: a request that still reaches it (on a kept-alive connection) is sent elsewhere. */
export class ServerClosing extends Error {
  readonly code = 'SERVER_CLOSING';
  constructor() {
    super('The server is shutting down.');
    this.name = 'ServerClosing';
  }
}

export function classifyFailure(error: unknown): Failure {
  const e = error as Partial<FastifyError> & { code?: string };
  if (error instanceof ServerClosing) return { status: 503, message: 'The service is temporarily unavailable. Please try again shortly.', isServerFault: false };
  // Reading the request body failed because the client closed the connection (Node's "aborted",
  // given a 4xx status by Fastify's body parser); the same codes from the database have no status.
  if (typeof e.code === 'string' && CLIENT_GONE_CODES.has(e.code) && typeof e.statusCode === 'number' && e.statusCode < 500) {
    return { status: 400, message: 'The request was aborted.', isServerFault: false, isClientAbort: true };
  }
  if (typeof e.code === 'string' && DATABASE_DOWN_CODES.has(e.code)) {
    return { status: 503, message: 'The service is temporarily unavailable. Please try again shortly.', isServerFault: true, isDatabaseDown: true };
  }
  if (typeof e.code === 'string' && DATABASE_TROUBLE_CODES.has(e.code)) {
    return { status: 503, message: 'The service is temporarily unavailable. Please try again shortly.', isServerFault: true };
  }
  if (e.code === MEMBER_DELETED_CODE) return { status: 409, message: MEMBER_DELETED_MESSAGE, isServerFault: false };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    return { status, message: clientMessage(e, status), isServerFault: false };
  }
  return { status: 500, message: 'An unexpected error occurred.', isServerFault: true };
}

function clientMessage(e: Partial<FastifyError>, status: number): string {
  switch (status) {
    case 413: return 'The request body is too large.';
    case 415: return e.code === UNSUPPORTED_CONTENT_CODING && e.message ? e.message : 'Unsupported content type.';
    case 403: return 'Access to this resource is forbidden.';
    case 404: return 'Not found.';
    case 429: return 'Too many requests. Please slow down.';
    default:
      // Fastify's own 4xx errors (FST_*), a malformed form and JSON syntax errors describe the input, not our internals.
      return typeof e.code === 'string' && (e.code.startsWith('FST_') || e.code === MALFORMED_FORM_BODY) && e.message ? e.message : 'The request is malformed.';
  }
}

/**
 * Our faults at error level with the stack; an unreachable database at warn with its code and message
 * only (an outage fails every request the same way: a stack each would flood the log); a client that
 * went away at info; other client errors not at all.
 */
export function logFailure(log: FastifyBaseLogger, error: unknown, failure: Failure): void {
  if (failure.isDatabaseDown) {
    const { code, message, store } = error as { code?: string; message?: string; store?: string };
    const cause = (error as { cause?: { code?: string } }).cause;
    const redis = store === 'redis' ? { store } : {};
    log.warn({ code, ...redis, ...(cause?.code === undefined ? {} : { causeCode: cause.code }), reason: message }, `${store === 'redis' ? 'redis' : 'database'} unavailable`);
  } else if (failure.isServerFault) log.error({ err: error }, 'request failed');
  else if (failure.isClientAbort) log.info({ code: (error as { code?: string }).code }, 'client aborted the request');
}
