/**
 * The `/api` context (SPEC §4, §7): problem+json errors, 404 for unknown
 * routes, JSON-only bodies (api-body.ts), closed query strings
 * (validation.ts), and the order of checks every operation shares: not
 * logged in → 401 (403 for the two operations the seed lists without 401),
 * then a missing or wrong `X-CSRF-Token` on POST/PUT/PATCH/DELETE → 403, then
 * schema validation (routes that answer 404/403 first defer the body and
 * query part: validation-order.ts). A route that declares no query schema
 * takes no query parameters. Routes declare what they need in `config`.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { tokensMatch } from '../accounts/csrf.ts';
import { ApiProblem, problemBody, type FieldError, type ProblemBody } from './problem.ts';
import { installApiBodyParsers } from './api-body.ts';
import { classifyFailure, logFailure } from './failures.ts';
import { markJsonRoutes } from './security-headers.ts';
import { compileApiValidator } from './validation.ts';
import type { ProblemCode } from './problem-codes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required`: 401 when logged out; `required-403`: 403 when logged out; default: optional. */
    auth?: 'required' | 'required-403' | 'optional';
    /** Set false only for the login call itself. */
    csrf?: boolean;
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The query schema of an operation that declares no query parameters: none are allowed. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

export function installApiContext(api: FastifyInstance): void {
  // Swagger UI's pages under /api/doc keep the page headers (it sets its own CSP).
  markJsonRoutes(api, (url) => url.startsWith('/api/doc'));
  api.setValidatorCompiler(compileApiValidator);
  installApiBodyParsers(api);
  // Closed query strings hold on every route, not only where one declares a query:
  // `DELETE /api/contents/2?foo=1` is a 400 like any other unknown parameter.
  api.addHook('onRoute', (route) => {
    if (route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NO_QUERY };
  });
  api.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config ?? {};
    const auth = config.auth ?? 'optional';
    const mutating = MUTATING.has(request.method);
    if (auth === 'optional' && !mutating) return;
    const session = await request.getSession();
    if (!session && auth === 'required') throw new ApiProblem(401, 'auth.unauthenticated', 'You must be logged in.');
    if (!session && auth === 'required-403') throw new ApiProblem(403, 'auth.forbidden', 'You must be logged in to do this.');
    if (session && mutating && config.csrf !== false && !tokensMatch(session.csrfToken, request.headers['x-csrf-token'])) {
      throw new ApiProblem(403, 'auth.csrf-invalid', 'Missing or wrong X-CSRF-Token header.');
    }
  });

  api.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problemBody(404, 'request.not-found', `No such operation: ${request.method} ${request.url.split('?')[0]}`));
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

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type('application/problem+json').send(body);
}

function validationErrors(error: FastifyError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const { missingProperty, additionalProperty } = (v.params ?? {}) as { missingProperty?: string; additionalProperty?: string };
    const key = missingProperty ?? additionalProperty;
    const path = `${v.instancePath}${key === undefined ? '' : `/${key}`}`;
    const unknown = context === 'body' ? 'is not a field of this operation' : 'is not a parameter of this operation';
    const message = additionalProperty === undefined ? v.message ?? 'is invalid' : unknown;
    return { field: `${context}${path}`, message };
  });
}

function codeForStatus(status: number): ProblemCode {
  switch (status) {
    case 403: return 'request.forbidden';
    case 404: return 'request.not-found';
    case 405: return 'request.method-not-allowed';
    case 413: return 'request.too-large';
    case 415: return 'request.unsupported-media-type';
    case 429: return 'auth.too-many-attempts';
    case 503: return 'server.unavailable';
    default: return status >= 500 ? 'server.error' : 'request.invalid';
  }
}

