/**
 * SPEC-API's order of checks puts "path parameter breaks its pattern → 400"
 * before 404 and 403, but "invalid body or query → 400" after them. Routes
 * that need both declare `attachValidation: true` and call these two at the
 * right points; the `/api` error handler turns the rethrown validation error
 * into the usual 400 problem with one entry per field.
 */
import type { FastifyRequest } from 'fastify';

/** Throws when a path parameter failed its schema. */
export function assertValidParams(request: FastifyRequest): void {
  const error = request.validationError;
  if (error && (error as { validationContext?: string }).validationContext === 'params') throw error;
}

/** Throws when the body, query or headers failed their schema. */
export function assertValidInput(request: FastifyRequest): void {
  if (request.validationError) throw request.validationError;
}
