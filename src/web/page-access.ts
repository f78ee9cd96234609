/**
 * Who may see a server-rendered page (SPEC §4: logged out where login is
 * needed → the login page, which returns here; logged in without the right →
 * 403 error page; SPEC §5.7: the client admin screen is for orga only).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isOrga } from '../accounts/roles.ts';
import type { SessionContext } from '../accounts/sessions.ts';
import { noteAccessDenied } from './access-denied.ts';

/** The login page, coming back to `returnTo` afterwards. */
export function loginRedirect(reply: FastifyReply, returnTo: string): FastifyReply {
  return reply.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, 303);
}

function forbidden(reply: FastifyReply): Promise<FastifyReply> {
  return reply.render('error', { message: reply.translator()('error.403') }, 403);
}

/**
 * The session when the visitor may see the page; otherwise answers with the
 * login redirect or the 403 page and returns null. A logged-out GET comes back
 * to itself after login; a logged-out form POST (an expired session) to
 * `returnTo`, its page, since the form must be filled in again anyway.
 */
export async function pageSession(request: FastifyRequest, reply: FastifyReply, options: { orgaOnly: boolean; returnTo: string }): Promise<SessionContext | null> {
  const session = await request.getSession();
  if (!session) {
    await loginRedirect(reply, request.method === 'GET' ? request.url : options.returnTo);
    return null;
  }
  if (options.orgaOnly && !isOrga(session.user)) {
    noteAccessDenied(request, { userId: session.user.id, reason: 'role' });
    await forbidden(reply);
    return null;
  }
  return session;
}
