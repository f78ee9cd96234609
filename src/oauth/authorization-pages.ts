/**
 * The pages the authorization endpoint shows (SPEC §5.2). oauth/ decides
 * which page and with what; web/ renders it (web/consent/consent.page.ts),
 * handed in by app.ts, so the protocol never depends on the screens.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationPageError } from './authorization-request.ts';
import type { Scope } from './scopes.ts';

export interface ConsentView {
  clientName: string;
  scopes: readonly Scope[];
  /** The request's parameters, posted back with the decision. */
  parameters: Readonly<Record<string, string>>;
  /** Where the user goes next, if the redirect URI is a web address. */
  origin: string | undefined;
  /** Where the form posts the answer: the authorization endpoint unless given (the device flow's `/device/approve`). */
  action?: string;
  /** Whether "remember this choice" is offered (absent: offered). */
  offerRemember?: boolean;
}

export interface AuthorizationPages {
  /** RFC 6749 §4.1.2.1: no trusted redirect URI to send the error to, so it is told to the user. */
  invalidRequest(request: FastifyRequest, reply: FastifyReply, error: Pick<AuthorizationPageError, 'reason' | 'status'>): Promise<FastifyReply>;
  /** The user is in none of the client's required regions; `back` returns `access_denied` to the client. */
  notInRequiredRegions(request: FastifyRequest, reply: FastifyReply, view: { clientName: string; back: string }): Promise<FastifyReply>;
  /** The consent form's CSRF token did not match. */
  consentExpired(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  /** OpenID Connect Core §3.1.2.4: the user is asked. */
  consent(request: FastifyRequest, reply: FastifyReply, view: ConsentView): Promise<FastifyReply>;
}
