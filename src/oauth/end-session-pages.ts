/**
 * The pages of the logout endpoint (RP-Initiated Logout 1.0 §2, §3): oauth/
 * decides which one and with what; web/ renders it
 * (web/end-session/end-session.page.ts), handed in by app.ts.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EndSessionPageError } from './end-session-request.ts';

export interface EndSessionView {
  /** The client asking, when the request named one. */
  clientName: string | undefined;
  /** The request's parameters, posted back with the member's answer. */
  parameters: Readonly<Record<string, string>>;
  /** Where the member goes afterwards, if a registered post-logout redirect URI was given. */
  origin: string | undefined;
}

export interface EndSessionPages {
  /** The request cannot be trusted (§3: no redirect): told to the member. */
  invalidRequest(request: FastifyRequest, reply: FastifyReply, error: Pick<EndSessionPageError, 'reason' | 'status'>): Promise<FastifyReply>;
  /** §2: the member is asked whether to log out; `expired` when the form's CSRF token did not match. */
  confirm(request: FastifyRequest, reply: FastifyReply, view: EndSessionView, expired: boolean): Promise<FastifyReply>;
  /** Logged out, and no post-logout redirect URI to go to. */
  loggedOut(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
}
