import type { FastifyRequest } from 'fastify';
import { ApiProblem } from './plugin/problem.ts';
import type { Actor } from './region-access.repository.ts';

/** The logged-in caller of a route with `auth: 'required'` (the `/api` hook has already refused anonymous calls). */
export async function requireActor(request: FastifyRequest): Promise<Actor> {
  const session = await request.getSession();
  if (!session) throw new ApiProblem(401, 'auth.unauthenticated', 'You must be logged in.');
  return { id: session.user.id, role: session.user.role, verified: session.user.verified };
}
