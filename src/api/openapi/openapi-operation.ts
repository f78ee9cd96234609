/**
 * What the OpenAPI document says about an operation beyond its own schema,
 * derived from how the `/api` context treats every route, so that it cannot
 * drift from the code:
 * - security: `session` (the cookie) where the route's `config.auth` requires
 *   a login, `csrf` (the X-CSRF-Token header) on POST/PUT/PATCH/DELETE unless
 *   the route opts out (login); a requirement object lists both when both are
 *   needed (OpenAPI: keys of one object must all be satisfied);
 * - 413 and 415 on every operation that takes a body: the body limit and the
 *   JSON-only parsers answer them before or instead of the route.
 */
import type { FastifySchema, RouteOptions } from 'fastify';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { isLoginRequired, needsCsrfToken, type ApiRouteConfig } from '../plugin/route-config.ts';

type SecurityRequirement = Record<string, string[]>;

const BODY_FAILURES = { 413: ProblemSchema, 415: ProblemSchema };

export function documentOperation(schema: FastifySchema, route: Pick<RouteOptions, 'method' | 'config'>): FastifySchema {
  const security = securityOf(route);
  const documented: FastifySchema = { ...schema, security };
  if (security.length === 0) delete documented.security;
  if (schema.body !== undefined) documented.response = { ...BODY_FAILURES, ...(schema.response as object | undefined) };
  return documented;
}

export function securityOf(route: Pick<RouteOptions, 'method' | 'config'>): SecurityRequirement[] {
  const config = (route.config ?? {}) as ApiRouteConfig;
  const loginRequired = isLoginRequired(config);
  const csrf = [route.method].flat().some((method) => needsCsrfToken(method, config));
  if (loginRequired) return [{ session: [], ...(csrf ? { csrf: [] } : {}) }];
  // Without a login the operation is open; with one, a state-changing call needs the session's CSRF token.
  return csrf ? [{}, { session: [], csrf: [] }] : [];
}
