/**
 * How `/api` answers every error (SPEC §7): `application/problem+json` with
 * a stable `code`; schema failures as 400 with one entry per field; anything
 * else classified (http/failures.ts) without exposing a 5xx's cause.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { classifyFailure, logFailure } from '../../http/failures.ts';
import type { PrefixErrorWording } from '../../http/prefix-errors.ts';
import { collapseAnyOfErrors } from './any-of-errors.ts';
import { ApiProblem, problemBody, type FieldError, type ProblemBody } from './problem.ts';
import { NAME_CHARACTERS_PROBLEM, NAME_PATTERN } from '../../text/control-characters.ts';
import type { ProblemCode } from './problem-codes.ts';
import { NO_NUL_PATTERN, ROUTER_MAX_PARAM_LENGTH } from '../row-id.ts';

export function installProblemHandlers(api: FastifyInstance): void {
  api.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(request.server, path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      // RFC 9110 §15.5.6: the path names an operation, under another method
      // (an operation that found nothing, a missing file of the Swagger UI, stays a 404).
      void reply.header('allow', allowed.join(', '));
      return sendProblem(reply, problemBody(405, 'request.method-not-allowed',
        `${request.method} is not an operation of ${path}; it takes ${allowed.join(', ')}`));
    }
    return sendProblem(reply, problemBody(404, 'request.not-found', `No such operation: ${request.method} ${path}`));
  });

  api.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiProblem) {
      if (error.headers) void reply.headers(error.headers);
      return sendProblem(reply, error.toBody());
    }
    if (error.validation) {
      return sendProblem(reply, problemBody(400, 'request.invalid', 'The request is invalid.', validationErrors(error)));
    }
    const failure = classifyFailure(error);
    logFailure(request.log, error, failure);
    return sendProblem(reply, problemBody(failure.status, codeForStatus(failure.status), failure.message));
  });
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods the router has an operation for at this path (Fastify answers HEAD wherever GET is).
 * None for a segment over the router's parameter limit: the router then answers any route with a
 * parameter there (its "too long" handler), whatever the rest of the path.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  if (path.split('/').some((segment) => decoded(segment).length > ROUTER_MAX_PARAM_LENGTH)) return [];
  return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
}

/** A path segment as the router measures a parameter: decoded (as it is, where it does not decode). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type('application/problem+json').send(body);
}

/** Errors raised before routing (a malformed request line, an over-long path segment) under `/api`: problem+json too. */
export const API_PRE_ROUTING_ERRORS: PrefixErrorWording = {
  prefix: '/api',
  contentType: 'application/problem+json',
  body: (status, detail) => problemBody(status, codeForStatus(status), detail),
};

/** A schema failure as `errors` entries: one per field. */
export function validationErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return collapseAnyOfErrors(error.validation ?? []).map((v) => {
    const { missingProperty, additionalProperty } = (v.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
    const key = missingProperty ?? additionalProperty;
    const path = `${v.instancePath}${key === undefined ? '' : `/${key}`}`;
    const unknown = context === 'body' ? 'is not a field of this operation' : 'is not a parameter of this operation';
    const message = additionalProperty !== undefined ? unknown : patternInWords(v) ?? v.message ?? 'is invalid';
    return { field: `${context}${path}`, message };
  });
}

/** The patterns of the text rules say in words what they refuse, not the regular expression. */
const PATTERNS_IN_WORDS: ReadonlyMap<string, string> = new Map([
  [NAME_PATTERN, NAME_CHARACTERS_PROBLEM],
  [NO_NUL_PATTERN, 'must not contain the NUL character (U+0000)'],
]);

function patternInWords(v: NonNullable<FastifyError['validation']>[number]): string | undefined {
  if (v.keyword !== 'pattern') return undefined;
  const pattern = (v.params as { pattern?: unknown }).pattern;
  return typeof pattern === 'string' ? PATTERNS_IN_WORDS.get(pattern) : undefined;
}

function codeForStatus(status: number): ProblemCode {
  switch (status) {
    case 403: return 'request.forbidden';
    case 404: return 'request.not-found';
    case 405: return 'request.method-not-allowed';
    case 408: return 'request.timeout';
    case 409: return 'member.deleted';
    case 413: return 'request.too-large';
    case 415: return 'request.unsupported-media-type';
    case 429: return 'auth.too-many-attempts';
    case 431: return 'request.headers-too-large';
    case 503: return 'server.unavailable';
    default: return status >= 500 ? 'server.error' : 'request.invalid';
  }
}
