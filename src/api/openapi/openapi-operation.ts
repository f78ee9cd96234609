/**
 * What the OpenAPI document says about an operation beyond its own schema,
 * derived from how the `/api` context treats every route, so that it cannot
 * drift from the code:
 * - security: `session` (the cookie) where the route's `config.auth` requires
 *   a login, `csrf` (the X-CSRF-Token header) on POST/PUT/PATCH/DELETE unless
 *   the route opts out (login); a requirement object lists both when both are
 *   needed (OpenAPI: keys of one object must all be satisfied);
 * - 400 on every operation: a query parameter it does not declare is refused;
 * - 413 and 415 on every POST, PUT, PATCH and DELETE, with a body or not: the
 *   body limit and the JSON-only parsers answer them before or instead of the
 *   route;
 * - the challenge every 401 carries (`WWW-Authenticate`, http/cookie-challenge.ts);
 * - a body's unknown fields as the validator treats them: dropped (so the
 *   document does not close the body's objects) unless the schema carries
 *   `CLOSED_BODY`, whose refusal it keeps.
 */
import type { FastifySchema, RouteOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { withHeaders, WWW_AUTHENTICATE } from '../plugin/response-headers.ts';
import { isLoginRequired, needsCsrfToken, type ApiRouteConfig } from '../plugin/route-config.ts';
import { isClosedBody } from '../plugin/validation.ts';

type SecurityRequirement = Record<string, string[]>;

const QUERY_FAILURE = { 400: ProblemSchema };
const BODY_FAILURES = { 413: ProblemSchema, 415: ProblemSchema };
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

export function documentOperation(schema: FastifySchema, route: Pick<RouteOptions, 'method' | 'config'>): FastifySchema {
  const security = securityOf(route);
  const documented: FastifySchema = { ...schema, security };
  if (security.length === 0) delete documented.security;
  const takesBody = [route.method].flat().some((method) => BODY_METHODS.includes(method));
  const responses: Record<string, TSchema> = { ...QUERY_FAILURE, ...(takesBody ? BODY_FAILURES : {}), ...(schema.response as Record<string, TSchema> | undefined) };
  if (responses[401] !== undefined) responses[401] = withHeaders(responses[401], WWW_AUTHENTICATE);
  documented.response = responses;
  if (schema.body !== undefined && !isClosedBody(schema.body)) documented.body = withUnknownFieldsIgnored(schema.body);
  return documented;
}

/** The body's schema without `additionalProperties: false` at any depth: the validator drops such fields (http/validation.ts). */
function withUnknownFieldsIgnored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withUnknownFieldsIgnored);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema)
    .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
    .map(([key, value]) => [key, withUnknownFieldsIgnored(value)]));
}

export function securityOf(route: Pick<RouteOptions, 'method' | 'config'>): SecurityRequirement[] {
  const config = (route.config ?? {}) as ApiRouteConfig;
  const loginRequired = isLoginRequired(config);
  const csrf = [route.method].flat().some((method) => needsCsrfToken(method, config));
  if (loginRequired) return [{ session: [], ...(csrf ? { csrf: [] } : {}) }];
  // Without a login the operation is open; with one, a state-changing call needs the session's CSRF token.
  return csrf ? [{}, { session: [], csrf: [] }] : [];
}
