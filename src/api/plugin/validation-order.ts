/**
 * SPEC-API's order of checks puts "path parameter breaks its pattern → 400"
 * before 404 and 403, but "invalid body or query → 400" after them. Routes
 * that need both declare `attachValidation: true` and call these two at the
 * right points; the `/api` error handler turns the rethrown error into the
 * usual problem (400 with one entry per field, or 415 for a media type that
 * is not JSON).
 */
import type { FastifyError, FastifyRequest } from 'fastify';
import { validationErrors } from './error-handler.ts';
import { ApiProblem, ValidationFailed, type FieldError } from './problem.ts';

/** A body that could not be parsed, kept until the route checks its input. */
const deferredBodyFailures = new WeakMap<FastifyRequest, ApiProblem>();

/** Records a body the parser refused (api-body.ts) on a route that checks its input late. */
export function deferBodyFailure(request: FastifyRequest, failure: ApiProblem): void {
  deferredBodyFailures.set(request, failure);
}

/** Throws when a path parameter failed its schema. */
export function assertValidParams(request: FastifyRequest): void {
  const error = request.validationError;
  if (error && (error as { validationContext?: string }).validationContext === 'params') throw error;
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request that changes a resource carries a precondition (RFC 9110 §13.1.1, §13.1.2). */
export function hasPreconditions(request: FastifyRequest): boolean {
  return CHANGES.has(request.method) && (request.headers['if-match'] !== undefined || request.headers['if-none-match'] !== undefined);
}

/**
 * RFC 9110 §13.1.1–§13.1.2 for the operations that change a resource: `/api` serves no entity tags for
 * them, so `If-Match` naming any tag is false and only `*` (the resource exists) is true; `If-None-Match: *`
 * is false for a resource that exists, and naming tags, true. A false one is 412 and nothing is changed:
 * a client that asked for protection against a lost update never has its change applied over another's.
 * Evaluated where the operation has found its resource and the caller may change it (§13.2.1: after what
 * would be 401, 403 or 404), before the body is looked at; `If-Unmodified-Since` is ignored (§13.1.4:
 * these resources have no modification date to compare).
 */
export function assertPreconditions(request: FastifyRequest): void {
  if (!hasPreconditions(request)) return;
  const ifMatch = request.headers['if-match'];
  if (ifMatch !== undefined && ifMatch.trim() !== '*') {
    throw new ApiProblem(412, 'request.precondition-failed',
      'If-Match: this API serves no entity tags for what it changes, so none matches; read it again and send the change without If-Match.');
  }
  if (request.headers['if-none-match']?.trim() === '*') {
    throw new ApiProblem(412, 'request.precondition-failed', 'If-None-Match: * — it exists already.');
  }
}

/**
 * Throws when a precondition is false (412; unless `preconditions` is false: a route that evaluates them
 * itself, later), or the body could not be parsed, or the body, query or headers failed their schema, or a
 * service's own rules refused a field (`ruleErrors`, found on what the schema accepted): all of them in
 * one answer, one entry per field, the schema's first.
 */
export function assertValidInput(request: FastifyRequest, ruleErrors: readonly FieldError[] = [], options: { preconditions?: boolean } = {}): void {
  if (options.preconditions !== false) assertPreconditions(request);
  const bodyFailure = deferredBodyFailures.get(request);
  if (bodyFailure) throw bodyFailure;
  const error = request.validationError;
  if (ruleErrors.length === 0) {
    if (error) throw error;
    return;
  }
  const schemaErrors = error ? validationErrors(error as FastifyError) : [];
  const refused = new Set(schemaErrors.map((e) => e.field));
  throw new ValidationFailed([...schemaErrors, ...ruleErrors.filter((e) => !refused.has(e.field))]);
}

/** Whether {@link assertValidInput} would throw. */
export function hasInvalidInput(request: FastifyRequest): boolean {
  return deferredBodyFailures.has(request) || request.validationError !== undefined;
}
