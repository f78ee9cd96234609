/**
 * The one caller rule of `/api`: a route that needs the logged-in user calls
 * {@link requireActor}, and services and policies see that user as an
 * {@link Actor}, never the session.
 */
import type { FastifyRequest } from 'fastify';
import {
  checkedSessionParams, liveSessionParams, type CheckedSessionParams, type LiveSessionParams, type SessionCheck, type SessionContext,
} from '../accounts/sessions.ts';
import type { Clock } from '../clock.ts';
import { authProblems } from './plugin/auth.problems.ts';
import { enforceRouteAuth, noSessionProblem, sessionForStatement } from './plugin/route-auth.ts';
import { isMutating } from './plugin/route-config.ts';
import { assertValidInput, assertValidParams, hasInvalidInput, hasPreconditions } from './plugin/validation-order.ts';

/** Who is acting: the logged-in user as the policies see them. */
export interface Actor {
  readonly id: number;
  readonly role: number;
  readonly verified: boolean;
}

/** The logged-in caller of a route with `auth: 'required'` (the `/api` hook has already refused anonymous calls). */
export async function requireActor(request: FastifyRequest): Promise<Actor> {
  const { user } = await requireSession(request);
  return { id: user.id, role: user.role, verified: user.verified };
}

/** The session itself, for the operations about it (`GET /api/user/current` answers its CSRF token). */
export async function requireSession(request: FastifyRequest): Promise<SessionContext> {
  const session = await request.getSession();
  if (!session) throw authProblems.unauthenticated();
  return session;
}

/**
 * A reading route with `sessionInStatement` (route-config.ts): when the `/api` hook left the session
 * to the route and the request is valid, `inStatement` reads the session in the route's own statement
 * (sessions.ts `inLiveSession`) and answers undefined for no live session: the route's 401 or 403.
 * Otherwise the usual order runs: the shared checks (401, 403), the path parameters (400), then
 * `ordinary`, which calls `checkInput` (the body and query, 400) after its own 404 and 403.
 */
export async function inSessionStatement<T>(
  request: FastifyRequest, clock: Clock,
  inStatement: (session: LiveSessionParams) => Promise<T | undefined>,
  ordinary: (actor: Actor, checkInput: () => void) => Promise<T>,
): Promise<T> {
  const session = sessionForStatement(request);
  // A state change must have its CSRF token checked: inCheckedSessionStatement's statement does, this one does not.
  if (session === undefined || isMutating(request.method) || hasInvalidInput(request)) return ordinaryOrder(request, ordinary);
  const answer = await inStatement(liveSessionParams(session.digest, clock()));
  if (answer === undefined) throw noSessionProblem(request.routeOptions.config)!;
  return answer;
}

/**
 * A mutating route with `sessionInStatement`: as {@link inSessionStatement}, but `inStatement` also
 * checks the CSRF token (sessions.ts `inLiveSessionWithCsrf`), writes nothing unless both hold, and
 * calls `checkSession` with its `session_check` before any answer of its own, which throws the
 * shared checks' problem: no live session (401 or 403), another token (403).
 */
export async function inCheckedSessionStatement<T>(
  request: FastifyRequest, clock: Clock,
  inStatement: (session: CheckedSessionParams, checkSession: (check: SessionCheck) => void) => Promise<T>,
  ordinary: (actor: Actor, checkInput: () => void) => Promise<T>,
): Promise<T> {
  const session = sessionForStatement(request);
  // A precondition is evaluated after the session's checks and before the write (validation-order.ts): the ordinary order.
  if (session?.csrfToken === undefined || hasInvalidInput(request) || hasPreconditions(request)) return ordinaryOrder(request, ordinary);
  return inStatement(checkedSessionParams(session.digest, clock(), session.csrfToken), (check) => {
    if (check === null) throw noSessionProblem(request.routeOptions.config)!;
    if (check === false) throw authProblems.csrfInvalid();
  });
}

async function ordinaryOrder<T>(request: FastifyRequest, ordinary: (actor: Actor, checkInput: () => void) => Promise<T>): Promise<T> {
  await enforceRouteAuth(request);
  const actor = await requireActor(request);
  assertValidParams(request);
  return ordinary(actor, () => assertValidInput(request));
}
