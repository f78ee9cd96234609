/**
 * The `/api` checks every operation shares (SPEC §4), in their order: not
 * logged in → 401 (403 for the operations the seed lists without 401), then
 * a missing or wrong `X-CSRF-Token` on POST/PUT/PATCH/DELETE → 403. The hook
 * of the `/api` context runs them before the route; a route whose own
 * statement reads the session (`sessionInStatement`) runs them itself when
 * it cannot use that statement (api/actor.ts).
 */
import type { FastifyRequest } from 'fastify';
import { tokensMatch } from '../../accounts/csrf.ts';
import { unreadSessionDigest } from '../../accounts/session-http.ts';
import { authProblems } from './auth.problems.ts';
import { isMutating, needsCsrfToken, type ApiRouteConfig } from './route-config.ts';
import type { ApiProblem } from './problem.ts';

/** Throws the first of the shared checks the request fails. The session is looked up once per request. */
export async function enforceRouteAuth(request: FastifyRequest): Promise<void> {
  const config = request.routeOptions.config ?? {};
  const auth = config.auth ?? 'optional';
  if (auth === 'optional' && !isMutating(request.method)) return;
  const session = await request.getSession();
  if (!session) {
    const problem = noSessionProblem(config);
    if (problem) throw problem;
    return;
  }
  if (needsCsrfToken(request.method, config) && !tokensMatch(session.csrfToken, request.headers['x-csrf-token'])) {
    throw authProblems.csrfInvalid();
  }
}

/** The answer to a request without a live session on a route with this config; undefined where login is optional. */
export function noSessionProblem(config: ApiRouteConfig): ApiProblem | undefined {
  if (config.auth === 'required') return authProblems.unauthenticated();
  if (config.auth === 'required-403') return authProblems.loggedOut();
  return undefined;
}

/**
 * What the route's own statement needs to read the session, when the `/api` hook may leave it to it:
 * the route says so, the cookie could be a session's and nothing has looked the session up yet, and
 * a mutating request carries a CSRF token to check (without one, the hook answers as for any route).
 */
export function sessionForStatement(request: FastifyRequest): { digest: Buffer; csrfToken: string | undefined } | undefined {
  const config = request.routeOptions.config ?? {};
  if (config.sessionInStatement !== true) return undefined;
  const digest = unreadSessionDigest(request);
  if (digest === undefined) return undefined;
  if (!needsCsrfToken(request.method, config)) return { digest, csrfToken: undefined };
  const csrfToken = request.headers['x-csrf-token'];
  return typeof csrfToken === 'string' && csrfToken !== '' ? { digest, csrfToken } : undefined;
}
