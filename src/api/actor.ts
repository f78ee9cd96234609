/**
 * The one caller rule of `/api`: a route that needs the logged-in user calls
 * {@link requireActor}, and services and policies see that user as an
 * {@link Actor}, never the session.
 */
import type { FastifyRequest } from 'fastify';
import { unreadSessionDigest } from '../accounts/session-http.ts';
import { liveSessionParams, type LiveSessionParams, type SessionContext } from '../accounts/sessions.ts';
import type { Clock } from '../clock.ts';
import { authProblems } from './plugin/auth.problems.ts';
import { assertValidInput } from './plugin/validation-order.ts';

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
 * unread and the request is valid, `inStatement` reads the session in the route's own statement
 * (sessions.ts `inLiveSession`) and answers undefined for no live session: a 401. Otherwise the usual
 * order runs: the session (401), then the input (400), then `ordinary` with the actor.
 */
export async function inSessionStatement<T>(
  request: FastifyRequest, clock: Clock,
  inStatement: (session: LiveSessionParams) => Promise<T | undefined>,
  ordinary: (actor: Actor) => Promise<T>,
): Promise<T> {
  const digest = unreadSessionDigest(request);
  if (digest === undefined || request.validationError) {
    const actor = await requireActor(request);
    assertValidInput(request);
    return ordinary(actor);
  }
  const answer = await inStatement(liveSessionParams(digest, clock()));
  if (answer === undefined) throw authProblems.unauthenticated();
  return answer;
}
