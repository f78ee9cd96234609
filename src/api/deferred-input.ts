/**
 * SPEC-API's order of checks puts "path parameter breaks its pattern → 400"
 * before "404 → 403", but "invalid body or query → 400" after them. Routes
 * with a body or query therefore set `attachValidation: true`: a path error is
 * thrown at once by {@link rejectInvalidPath}; a body or query error travels
 * to the service, which throws it with {@link rejectInvalidInput} once it has
 * found the addressed thing and checked the caller's permission.
 */
import type { FastifyRequest } from 'fastify';

/** A validation error of the body or query, kept until the service may report it. */
export type InputError = Error | undefined;

/** Throws a path-parameter validation error; returns the body/query error, if any. */
export function rejectInvalidPath(request: FastifyRequest): InputError {
  const error = request.validationError;
  if (!error) return undefined;
  if (error.validationContext === 'params') throw error;
  return error;
}

export function rejectInvalidInput(error: InputError): void {
  if (error) throw error;
}
