/**
 * `GET|POST /oauth/logout`, the end_session_endpoint (OpenID Connect
 * RP-Initiated Logout 1.0): a client sends the member here to log out. The
 * session ends at once only when the `id_token_hint` proves the request comes
 * from the session's own sign-in (same member, same `sid`); otherwise the
 * member is asked (§2), on a CSRF-protected form. Afterwards the member goes
 * to the client's registered `post_logout_redirect_uri` with `state` (§3), or
 * sees that they are logged out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { logOut } from '../../accounts/login.service.ts';
import { clearSessionCookies, sessionIdOf } from '../../accounts/session-http.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import type { Config } from '../../config.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { formParameters, responseUrl, type RawParameters } from '../authorization-request.ts';
import { webOrigin } from '../checks/redirect-uri.ts';
import type { EndSessionPages, EndSessionView } from '../end-session-pages.ts';
import { EndSessionPageError, parseEndSessionRequest, type EndSessionRequest } from '../end-session-request.ts';
import type { OAuthContext } from '../oauth-context.ts';

export const END_SESSION_PATH = '/oauth/logout';

/** The confirmation form's button: its presence tells the member's answer from a client's POSTed request. */
const DECISION = 'logout';

export function endSessionEndpoint(app: FastifyInstance, ctx: OAuthContext, pages: EndSessionPages, config: Config): void {
  /** §3: to the registered URI with `state`, or the logged-out page. */
  const finish = (request: FastifyRequest, reply: FastifyReply, req: EndSessionRequest) => {
    if (req.postLogoutRedirectUri === undefined) return pages.loggedOut(request, reply);
    return reply.redirect(responseUrl(req.postLogoutRedirectUri, { state: req.state }), 303);
  };

  /** The path /logout takes (accounts/login.service.ts): the session and the grants issued under it end. */
  const end = async (request: FastifyRequest, reply: FastifyReply, req: EndSessionRequest, confirmed: boolean) => {
    const ended = await logOut(ctx.db, sessionIdOf(request), ctx.clock());
    clearSessionCookies(reply, config);
    request.sessionLookup = Promise.resolve(null);
    if (ended) {
      logSecurityEvent(request.events, {
        event: 'oauth.logout', userId: ended.userId, clientId: req.client?.client_id ?? null, confirmed, grantsRevoked: ended.grantsRevoked,
      });
    }
    return finish(request, reply, req);
  };

  const confirm = (request: FastifyRequest, reply: FastifyReply, req: EndSessionRequest, expired: boolean) =>
    pages.confirm(request, reply, confirmationView(req), expired);

  const handle = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters, isPost: boolean) => {
    const req = await parseEndSessionRequest(ctx, raw).catch((error: unknown) => {
      if (error instanceof EndSessionPageError) return error;
      throw error;
    });
    if (req instanceof EndSessionPageError) return pages.invalidRequest(request, reply, req);
    const isDecision = isPost && raw[DECISION] !== undefined;
    const session = await request.getSession();
    // A client's cross-site POST arrives without the SameSite=Lax session cookie: the same
    // request as a GET (a top-level navigation, which carries it) finds the session, if any.
    if (!session && isPost && !isDecision) return reply.redirect(`${END_SESSION_PATH}?${new URLSearchParams(req.parameters).toString()}`, 303);
    if (!session) return finish(request, reply, req);
    if (isDecision) {
      if (!(await isValidFormToken(request, raw.csrf_token))) return confirm(request, reply, req, true);
      return end(request, reply, req, true);
    }
    return isOwnSignIn(req, session) ? end(request, reply, req, false) : confirm(request, reply, req, false);
  };

  app.get(END_SESSION_PATH, (request, reply) => handle(request, reply, (request.query ?? {}) as RawParameters, false));
  app.post(END_SESSION_PATH, (request, reply) => handle(request, reply, formParameters(request.body), true));
}

/** What the confirmation page shows of a request. */
function confirmationView(req: EndSessionRequest): EndSessionView {
  return {
    clientName: req.client?.name,
    parameters: req.parameters,
    origin: req.postLogoutRedirectUri === undefined ? undefined : webOrigin(req.postLogoutRedirectUri),
  };
}

/**
 * §2: the hint is an ID token this session's sign-in gave the client (same
 * member, same `sid`), so the request comes from that client, not from a
 * page that merely links here. Anything else is confirmed by the member, and
 * so is a request whose redirect URI was dropped: it did not come as the
 * client registered it.
 */
function isOwnSignIn(req: EndSessionRequest, session: SessionContext): boolean {
  return !req.redirectDropped && req.hint !== undefined && req.hint.sub === String(session.user.id) && req.hint.sid === session.sid;
}
