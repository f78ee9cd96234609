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
import { ValidationFailed, type ApiProblem, type FieldError } from './problem.ts';

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

/**
 * Throws when the body could not be parsed, or the body, query or headers failed their schema, or a
 * service's own rules refused a field (`ruleErrors`, found on what the schema accepted): all of them in
 * one answer, one entry per field, the schema's first.
 */
export function assertValidInput(request: FastifyRequest, ruleErrors: readonly FieldError[] = []): void {
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
