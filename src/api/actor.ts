/**
 * The one caller rule of `/api`: a route that needs the logged-in user calls
 * {@link requireActor}, and services and policies see that user as an
 * {@link Actor}, never the session.
 */
import type { FastifyRequest } from 'fastify';
import type { SessionContext } from '../accounts/sessions.ts';
import { authProblems } from './plugin/auth.problems.ts';

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
