/** Form parameters of the OAuth POST endpoints (RFC 6749 §3.2: form-encoded, each parameter at most once). */
import type { FastifyRequest } from 'fastify';
import { InvalidRequest } from '../errors.ts';

export function isFormRequest(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/** The named parameters as single strings; other parameters are ignored. */
export function formParameters<K extends string>(request: FastifyRequest, names: readonly K[]): Record<K, string | undefined> {
  if (!isFormRequest(request)) throw new InvalidRequest('The request body must be application/x-www-form-urlencoded.');
  const body = (request.body ?? {}) as Record<string, unknown>;
  const result = {} as Record<K, string | undefined>;
  for (const name of names) {
    const value = body[name];
    if (value !== undefined && typeof value !== 'string') throw new InvalidRequest(`The parameter ${name} must be given once.`);
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail in a query.
    if (value !== undefined && value.includes('\u0000')) throw new InvalidRequest(`The parameter ${name} contains a NUL character.`);
    // RFC 6749 §3.2: a parameter sent without a value is treated as omitted.
    result[name] = value === '' ? undefined : value;
  }
  return result;
}
