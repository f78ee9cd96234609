/**
 * The `/api` context (SPEC §4, §7): problem+json errors (error-handler.ts),
 * 404 for unknown routes, JSON-only bodies (body.ts), closed query strings
 * (validation.ts), and the order of checks every operation shares: not
 * logged in → 401 (403 for the two operations the seed lists without 401),
 * then a missing or wrong `X-CSRF-Token` on POST/PUT/PATCH/DELETE → 403, then
 * schema validation (every route that can answer 404 defers the body and
 * query part until after its 404 and 403: validation-order.ts). A route that
 * declares no query schema takes no query parameters. Answers are not stored by caches
 * (`Cache-Control: no-store`) unless the route sets its own caching. Routes declare what they need in `config`
 * (route-config.ts).
 */
import type { FastifyInstance } from 'fastify';
import { sessionIdOf } from '../../accounts/session-http.ts';
import type { SecondFactorDemand } from '../../accounts/second-factor-requirement.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import { markJsonRoutes } from '../../http/security-headers.ts';
import { authProblems } from './auth.problems.ts';
import { installApiBodyParsers } from './body.ts';
import { installProblemHandlers } from './error-handler.ts';
import { enforceRouteAuth, sessionForStatement } from './route-auth.ts';
import { isLoginRequired } from './route-config.ts';
import { compileApiValidator } from './validation.ts';
import { compiledOnFirstUse } from '../../http/validation.ts';

/** The query schema of an operation that declares no query parameters: none are allowed. */
const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

/** REQUIRE_SECOND_FACTOR: whether a session must set up a second factor first, or prove it, and where. */
export interface EnrolmentGate {
  /** What the session (its cookie value) must do first. */
  demand(session: SessionContext, sessionId: string): Promise<SecondFactorDemand>;
  /** Where a second factor is set up. */
  readonly page: string;
  /** Where a member signs in with it. */
  readonly login: string;
}

/** What a member who must set up a second factor may still do under /api. */
const REACHABLE_BEFORE_ENROLMENT = new Set(['/api/user/logout']);

function answers404(schema: { response?: unknown } | undefined): boolean {
  return typeof schema?.response === 'object' && schema.response !== null && '404' in schema.response;
}

export function installApiContext(api: FastifyInstance, gate?: EnrolmentGate): void {
  // Swagger UI's pages under /api/doc keep the page headers (it sets its own CSP).
  markJsonRoutes(api, (url) => url.startsWith('/api/doc'));
  api.setValidatorCompiler(compiledOnFirstUse(compileApiValidator));
  installApiBodyParsers(api);
  // Answers show the caller's data (the CSRF token, phone numbers) or depend on the session: no cache
  // may keep them (RFC 9111 §5.2.2.5). A route that may be cached sets its own header, which replaces this.
  api.addHook('onRequest', (_request, reply, done) => {
    void reply.header('cache-control', 'no-store');
    done();
  });
  // Closed query strings hold on every route, not only where one declares a query:
  // `DELETE /api/contents/2?foo=1` is a 400 like any other unknown parameter.
  api.addHook('onRoute', (route) => {
    if (route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NO_QUERY };
    if (answers404(route.schema) && route.attachValidation !== true) {
      throw new Error(`${route.method} ${route.url}: a route that answers 404 needs attachValidation, or a 400 for its query or body would come before the 404`);
    }
    if (route.config?.sessionInStatement && route.attachValidation !== true) {
      throw new Error(`${route.method} ${route.url}: sessionInStatement needs attachValidation, or a 400 would come before the 401`);
    }
    if (route.config?.sessionInStatement && !isLoginRequired(route.config)) {
      throw new Error(`${route.method} ${route.url}: sessionInStatement is for routes that require a login`);
    }
  });
  if (gate) {
    api.addHook('onRequest', async (request) => {
      const sessionId = sessionIdOf(request);
      if (sessionId === undefined || REACHABLE_BEFORE_ENROLMENT.has(request.url.split('?')[0]!)) return;
      const session = await request.getSession();
      const demand = session ? await gate.demand(session, sessionId) : undefined;
      // Past its time, the session has been ended: the request goes on as one without a session.
      if (demand === 'sign-in-again') request.sessionLookup = Promise.resolve(null);
      if (demand === 'enrol') throw authProblems.enrolmentRequired(gate.page);
      if (demand === 'step-up') throw authProblems.secondFactorRequired(gate.login);
    });
  }
  api.addHook('onRequest', async (request) => {
    if (sessionForStatement(request) === undefined) await enforceRouteAuth(request);
  });
  installProblemHandlers(api);
}
