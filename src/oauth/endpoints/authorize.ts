/**
 * `GET|POST /oauth/authorize` (RFC 6749 §4.1.1, OpenID Connect Core §3.1.2;
 * SPEC §5.2): checks in the order of the spec, the login round trip, the
 * region restriction, consent, and the code. Errors before the redirect URI is
 * trusted are pages; later ones go back to the client.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { findMemberRegionIds } from '../../accounts/region-access.ts';
import { unreadSessionDigest } from '../../accounts/session-http.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import {
  AuthorizationPageError, AuthorizationRedirectError, checkAuthorizationRequest, formParameters, LOGIN_AFTER_PARAMETER, parseAuthorizationRequest, responseUrl,
  type AuthorizationRequest, type RawParameters, type RequestSource,
} from '../authorization-request.ts';
import type { AuthorizationPages } from '../authorization-pages.ts';
import { idTokenHintOf } from '../checks/id-token-hint.ts';
import { isInRequiredRegions } from '../checks/required-regions.ts';
import { webOrigin } from '../checks/redirect-uri.ts';
import { findConsentScopes, rememberConsent } from '../consent/consents.repository.ts';
import { AccessDenied, ConsentRequired, LoginRequired, TemporarilyUnavailable, UnmetAuthenticationRequirements, type OAuthError } from '../errors.ts';
import { metAcr, STEP_UP_CANCELLED, unmetReason } from '../step-up.ts';
import { meetsAcr } from '../../accounts/authentication-methods.ts';
import { findSecondFactors } from '../../accounts/one-time-codes/one-time-codes.repository.ts';
import { PENDING_LOGIN_SECONDS } from '../../accounts/one-time-codes/pending-logins.ts';
import { SECOND_FACTOR_PATH } from '../../accounts/second-factor-requirement.ts';
import { noteSecondFactor } from '../../ops/metrics.ts';
import { issueAuthorizationCode, issueAuthorizationCodeIfConsented, issueAuthorizationCodeInSession, type CodeBinding } from '../grants/code-issuance.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { continueRequest, takeRequest } from '../pushed-authorization/pushed-requests.ts';
import { isFormRequest } from './form.ts';
import { derivedKeys } from '../keys/derived-keys.ts';
import { loginMarker, loginMarkerTime } from '../login-marker.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';

export const REGIONS_MESSAGE = 'User not in required regions';
const FORM_BODY_REQUIRED = 'The request body must be application/x-www-form-urlencoded';
/** What a step-up with a one-time code signs in with (docs/oauth.md, "Authentication methods and levels"). */
const CODE_SIGN_IN = ['pwd', 'otp', 'mfa'];

type Respond = (reply: FastifyReply, req: AuthorizationRequest, session: SessionContext) => Promise<FastifyReply>;

export function authorizeEndpoint(app: FastifyInstance, ctx: OAuthContext, pages: AuthorizationPages): void {
  const source: RequestSource = {
    requirePushed: ctx.requirePushedAuthorizationRequests,
    takePushed: (client, requestUri) => takeRequest(ctx.db, client, requestUri, ctx.clock()),
  };
  const markerKey = derivedKeys(ctx.material).loginMarker;
  /** The second of the request's own login marker, when this server wrote it for the request's client and it is still valid. */
  const loginAfter = (req: AuthorizationRequest, now: Date) => loginMarkerTime(markerKey, req.client.client_id, req.loginMarker, now);
  /** What the browser carries to the next step: the parameters, or for a pushed request a continuation (pushed-requests.ts). */
  const frontChannel = (req: AuthorizationRequest, parameters: Record<string, string>) =>
    req.pushed ? continueRequest(ctx.db, req.client, parameters, ctx.clock()) : Promise.resolve(parameters);

  const redirectWithError = (reply: FastifyReply, req: { redirectUri: string; state: string | undefined }, error: OAuthError) =>
    reply.redirect(responseUrl(req.redirectUri, { error: error.error, error_description: error.description, state: req.state, iss: ctx.issuer }), 303);

  /** Steps 1–3: the parsed request, or the error page / error redirect already sent. */
  const parse = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters): Promise<{ req: AuthorizationRequest } | { sent: FastifyReply }> => {
    try {
      return { req: await parseAuthorizationRequest(ctx.clients.load, raw, source, ctx) };
    } catch (error) {
      if (error instanceof AuthorizationPageError) return { sent: await pages.invalidRequest(request, reply, error) };
      if (error instanceof AuthorizationRedirectError) return { sent: redirectWithError(reply, error, error.error) };
      throw error;
    }
  };

  /**
   * Step-up: the second step page (web/login/second-factor.page.ts) renews the
   * session with the stronger methods and comes back here. A member who has no
   * factor that meets a required level gets `unmet_authentication_requirements`;
   * `prompt=none`, which forbids asking, `login_required` (OpenID Connect Core §3.1.2.6).
   * A level only preferred (a voluntary `acr` claim) is passed over instead (§5.5.1: no
   * error for a voluntary claim) where it cannot be met, `prompt=none` forbids asking, or the
   * member declined it (`cancelled`): undefined, and the request goes on with the session's level.
   */
  const stepUp = async (request: FastifyRequest, reply: FastifyReply, req: AuthorizationRequest, session: SessionContext, cancelled: boolean) => {
    const requested = req.acr ?? [];
    const event = { event: 'oauth.step_up', userId: session.user.id, clientId: req.client.client_id, requested } as const;
    if (cancelled && !req.acrRequired) {
      logSecurityEvent(request.events, { ...event, outcome: 'passed_over' });
      return undefined;
    }
    const unmet = unmetReason(requested, await findSecondFactors(ctx.db, session.user.id));
    if ((unmet !== undefined || req.prompt.has('none')) && !req.acrRequired) {
      logSecurityEvent(request.events, { ...event, outcome: 'passed_over' });
      return undefined;
    }
    if (unmet !== undefined) {
      logSecurityEvent(request.events, { ...event, outcome: 'unmet' });
      noteSecondFactor(request, 'step_up_unmet');
      return redirectWithError(reply, req, new UnmetAuthenticationRequirements(unmet));
    }
    if (req.prompt.has('none')) {
      logSecurityEvent(request.events, { ...event, outcome: 'login_required' });
      return redirectWithError(reply, req, new LoginRequired('The requested acr values need a second factor, which prompt=none forbids asking for.'));
    }
    // A one-time code cannot meet `phr`: then the page offers only the passkey.
    const codeMeets = requested.some((acr) => meetsAcr(CODE_SIGN_IN, acr));
    // A step-up with a code adds a factor to the sign-in without making it younger (docs/oauth.md, "Step-up"):
    // when `max_age` would run out before it could end (the time a login's second step is given), the login
    // with both factors is asked for at once, rather than a code now and the login after it. A passkey that
    // verifies the member is a new sign-in by itself: a passkey-only step-up is asked for as it is.
    const now = ctx.clock();
    if (codeMeets && req.maxAge !== undefined && !isLoginForRequest(loginAfter(req, now), session)
      && secondsSince(session.authTime, now) + PENDING_LOGIN_SECONDS > req.maxAge) {
      logSecurityEvent(request.events, { ...event, outcome: 'login' });
      return toLogin(reply, req);
    }
    logSecurityEvent(request.events, { ...event, outcome: 'asked' });
    const returnTo = authorizeUrl(await frontChannel(req, req.parameters));
    return reply.redirect(`${SECOND_FACTOR_PATH}?${new URLSearchParams({ return_to: returnTo, ...(codeMeets ? {} : { passkey: 'only' }) }).toString()}`, 303);
  };

  /** Step 4: to /login, and from there back to the same request, marked for the login about to happen. */
  const toLogin = async (reply: FastifyReply, req: AuthorizationRequest) => {
    const returnTo = authorizeUrl(await frontChannel(req, parametersAfterLogin(req, loginMarker(markerKey, req.client.client_id, ctx.clock()))));
    return reply.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, 303);
  };

  /** Step 5: the 403 page with a link back carrying access_denied. */
  const regionsPage = (request: FastifyRequest, reply: FastifyReply, req: AuthorizationRequest) => {
    if (req.prompt.has('none')) return redirectWithError(reply, req, new AccessDenied(REGIONS_MESSAGE));
    const back = responseUrl(req.redirectUri, { error: 'access_denied', error_description: REGIONS_MESSAGE, state: req.state, iss: ctx.issuer });
    return pages.notInRequiredRegions(request, reply, { clientName: req.client.name, back });
  };

  /** Where the browser takes the code back to the client (RFC 9207: with the issuer). */
  const codeLocation = (req: AuthorizationRequest, code: string) => responseUrl(req.redirectUri, { code, state: req.state, iss: ctx.issuer });

  /** Step 7: a code bound to client, user, redirect URI, scopes, PKCE challenge, nonce, auth_time and DPoP key. */
  const approve: Respond = async (reply, req, session) => {
    const code = await issueAuthorizationCode(ctx, codeBinding(req, session));
    return reply.redirect(codeLocation(req, code), 303);
  };

  /** Step 6, the user's answer on the consent page (CSRF-protected). */
  const decide = async (request: FastifyRequest, reply: FastifyReply, req: AuthorizationRequest, session: SessionContext, raw: RawParameters) => {
    if (!(await isValidFormToken(request, raw.csrf_token))) return pages.consentExpired(request, reply);
    if (raw.decision !== 'allow') return redirectWithError(reply, req, new AccessDenied('The user denied the request.'));
    const remembered = raw.remember === '1' || raw.remember === 'on';
    if (remembered) await rememberConsent(ctx.db, session.user.id, req.client.id, req.scopes, ctx.clock());
    logSecurityEvent(request.events, { event: 'oauth.consent.granted', userId: session.user.id, clientId: req.client.client_id, scopes: req.scopes, remembered });
    return approve(reply, req, session);
  };

  /**
   * Step 7 under a remembered consent: where to send the browser with the code, or undefined
   * (nothing stored) when the consent does not cover the request or the client changed.
   * (A location, not the sent reply: a reply is thenable, and awaiting it yields nothing.)
   */
  const approveRemembered = async (req: AuthorizationRequest, session: SessionContext): Promise<string | undefined> => {
    if (req.prompt.has('consent')) return undefined;
    const code = await issueAuthorizationCodeIfConsented(ctx, codeBinding(req, session), req.client.version);
    return code === undefined ? undefined : codeLocation(req, code);
  };

  /** Step 6: a covering remembered consent approves at once (one statement); otherwise the consent page. */
  const consent = async (request: FastifyRequest, reply: FastifyReply, req: AuthorizationRequest, session: SessionContext) => {
    const approved = await approveRemembered(req, session);
    if (approved !== undefined) return reply.redirect(approved, 303);
    return askConsent(request, reply, req);
  };

  /** Whether the member's remembered consent covers the request (and it does not ask for the page again). */
  const allowsClient = async (req: AuthorizationRequest, session: SessionContext): Promise<boolean> => {
    if (req.prompt.has('consent')) return false;
    const remembered = await findConsentScopes(ctx.db, session.user.id, req.client.id);
    return remembered !== undefined && req.scopes.every((scope) => remembered.includes(scope));
  };

  /** The consent page; `consent_required` where no page may be shown. */
  const askConsent = async (request: FastifyRequest, reply: FastifyReply, req: AuthorizationRequest) => {
    if (req.prompt.has('none')) return redirectWithError(reply, req, new ConsentRequired('The user has not consented to this request.'));
    return pages.consent(request, reply, {
      clientName: req.client.name,
      scopes: req.scopes,
      // As asked, prompt and login marker included: the decision is held to the same fresh login (step 4).
      parameters: await frontChannel(req, req.parameters),
      origin: webOrigin(req.redirectUri),
    });
  };

  /**
   * The usual return of a signed-in member to an app they use, in one
   * statement instead of three: a GET whose client this instance keeps in
   * memory (client-cache.ts), whose session needs no new login and no
   * stronger one, a member of the client's regions, under a remembered
   * consent. The code is stored only if the client is still at the version
   * its checks were made on; when the request asks nothing of the session
   * but that it is live, the same statement reads it.
   * Anything else — a page, a redirect to the login, an error, a changed
   * client — answers nothing and is decided again from the start on a fresh
   * read, so no outcome but the code is ever decided on a kept client. Gives
   * where to send the browser with the code, or undefined.
   */
  const fromKeptClient = async (request: FastifyRequest, raw: RawParameters): Promise<string | undefined> => {
    const client = typeof raw.client_id === 'string' ? ctx.clients.kept(raw.client_id) : undefined;
    if (!client || raw.request_uri !== undefined || source.requirePushed || client.require_pushed_authorization_requests) return undefined;
    let req: AuthorizationRequest;
    try {
      req = checkAuthorizationRequest(client, raw);
    } catch (error) {
      if (error instanceof AuthorizationPageError || error instanceof AuthorizationRedirectError) return undefined;
      throw error;
    }
    // A hint (or a claimed sub) names a member to compare with the session's, and its key is read: decided from the start.
    if (req.prompt.has('consent') || idTokenHintOf(req.parameters) !== undefined || req.hintedSubject !== undefined) return undefined;
    // A request that asks nothing of the session but that it is live: the session is read in the code's own statement.
    const digest = unreadSessionDigest(request);
    if (digest !== undefined && asksOnlyForLiveSession(req)) {
      const code = await issueAuthorizationCodeInSession(ctx, requestBinding(req), digest, client.version);
      return code === undefined ? undefined : codeLocation(req, code);
    }
    const session = await request.getSession();
    if (!session || needsFreshLogin(req, loginAfter(req, ctx.clock()), session, ctx.clock()) || (req.acr !== undefined && metAcr(req.acr, session.amr) === undefined)) return undefined;
    if (!isInRequiredRegions(client.required_regions, await findMemberRegionIds(ctx.db, session.user.id, client.required_regions))) return undefined;
    return approveRemembered(req, session);
  };

  const handle = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters, isPost: boolean) => {
    const approved = isPost ? undefined : await fromKeptClient(request, raw);
    if (approved !== undefined) return reply.redirect(approved, 303);
    const parsed = await parse(request, reply, raw);
    if ('sent' in parsed) return parsed.sent;
    const { req } = parsed;
    try {
      return await proceed(request, reply, raw, isPost, req);
    } catch (error) {
      // The client changed or was deleted while a pushed request's continuation was stored (pushed-requests.ts):
      // the app hears it at its redirect URI (RFC 6749 §4.1.2.1), and may try again.
      if (error instanceof TemporarilyUnavailable) return redirectWithError(reply, req, error);
      throw error;
    }
  };

  /** Steps 4–8 of a parsed request. */
  const proceed = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters, isPost: boolean, req: AuthorizationRequest) => {
    const isDecision = isPost && raw.decision !== undefined;
    const session = await request.getSession();
    // A client's cross-site POST arrives without the SameSite=Lax session cookie: the same
    // request as a GET (a top-level navigation, which carries it) finds the session, if any.
    if (!session && isPost && !isDecision) return reply.redirect(authorizeUrl(await frontChannel(req, req.parameters)), 303);
    // Step 4, for the consent decision too: its form is no proof that its page was shown to this session
    // (anyone at the browser can post one), and a pushed request's continuation keeps its prompt server-side.
    if (!session || needsFreshLogin(req, loginAfter(req, ctx.clock()), session, ctx.clock())) {
      if (req.prompt.has('none')) return redirectWithError(reply, req, new LoginRequired('The user is not logged in.'));
      return toLogin(reply, req);
    }
    // OpenID Connect Core §3.1.2.1: a hint naming another member asks for their login, as prompt=login would;
    // when prompt=none forbids it, or the request's own login brought someone else, `login_required`.
    if (isOtherThanHinted(req, session)) {
      // A claimed sub (§5.5.1) may name anyone, where a hint names a member whose ID token this client
      // holds: until the member has allowed this client, the answer must not tell whether it names them
      // (any client could learn who is signed in, id by id). The consent page, or consent_required; its
      // decision comes back here, and never a code for another member than the one named.
      if (idTokenHintOf(req.parameters) === undefined && !isDecision && !(await allowsClient(req, session))) return askConsent(request, reply, req);
      if (req.prompt.has('none') || isLoginForRequest(loginAfter(req, ctx.clock()), session)) {
        return redirectWithError(reply, req, new LoginRequired(idTokenHintOf(req.parameters) !== undefined ? OTHER_THAN_HINTED : OTHER_THAN_CLAIMED));
      }
      return toLogin(reply, req);
    }
    // OpenID Connect Core §3.1.2.1, §5.5.1.1: a stronger login than the session's was asked for;
    // the member may decline it on the step-up page, and the app hears so.
    // A preference only (a voluntary claim) was settled when the consent page was shown: its decision goes on.
    if (req.acr !== undefined && metAcr(req.acr, session.amr) === undefined && (req.acrRequired || !isDecision)) {
      const cancelled = raw[STEP_UP_CANCELLED.name] === STEP_UP_CANCELLED.value;
      if (cancelled && req.acrRequired) {
        return redirectWithError(reply, req, new AccessDenied('The user cancelled the stronger sign-in the app asked for.'));
      }
      const asked = await stepUp(request, reply, req, session, cancelled);
      if (asked !== undefined) return asked;
    }
    const memberOf = await findMemberRegionIds(ctx.db, session.user.id, req.client.required_regions);
    if (!isInRequiredRegions(req.client.required_regions, memberOf)) return regionsPage(request, reply, req);
    return isDecision ? decide(request, reply, req, session, raw) : consent(request, reply, req, session);
  };

  // Popup sign-in (oidc-client-ts signinPopup, MSAL, …) needs the popup to keep its opener through this
  // page; the site-wide `Cross-Origin-Opener-Policy: same-origin` would sever it. Framing stays forbidden.
  const onRequest = async (_request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('cross-origin-opener-policy', 'unsafe-none');
  };
  // OpenID Connect Core §3.1.2.1: a POSTed request is form-serialised. Any other body is refused
  // before it is read, with the page of a request whose redirect URI is not known yet.
  const onPost = async (request: FastifyRequest, reply: FastifyReply) => {
    await onRequest(request, reply);
    if (!isFormRequest(request)) {
      return pages.invalidRequest(request, reply, new AuthorizationPageError(400, 'invalid_request_body', FORM_BODY_REQUIRED));
    }
  };
  app.get('/oauth/authorize', { onRequest }, (request, reply) => handle(request, reply, (request.query ?? {}) as RawParameters, false));
  app.post('/oauth/authorize', { onRequest: onPost }, (request, reply) => handle(request, reply, formParameters(request.body), true));
}

/** Step 7: what a code is bound to. */
function codeBinding(req: AuthorizationRequest, session: SessionContext): CodeBinding {
  return {
    ...requestBinding(req), userId: session.user.id, authTime: session.authTime, amr: session.amr, sid: session.sid,
    acr: metAcr(req.acr, session.amr) ?? null,
  };
}

/** The request's part of what a code is bound to. */
function requestBinding(req: AuthorizationRequest) {
  return { clientRowId: req.client.id, redirectUri: req.redirectUri, scopes: req.scopes, codeChallenge: req.codeChallenge, nonce: req.nonce, dpopJkt: req.dpopJkt };
}

/**
 * Steps 4–5 pass for any live session when the request asks for no fresh
 * login (`prompt=login`, `max_age`), no level (`acr`) and the client for no
 * region: {@link needsFreshLogin} is then false, and no membership is looked up.
 */
function asksOnlyForLiveSession(req: AuthorizationRequest): boolean {
  return !asksForLogin(req) && req.maxAge === undefined && req.acr === undefined && req.client.required_regions.length === 0;
}

/**
 * The session's login was made after the request was sent to /login for it: `loginAfter` is
 * the second of the request's {@link LOGIN_AFTER_PARAMETER}, verified (oauth/login-marker.ts).
 */
function isLoginForRequest(loginAfter: number | undefined, session: SessionContext): boolean {
  return loginAfter !== undefined && session.authTime.getTime() >= loginAfter * 1000;
}

/**
 * OpenID Connect Core §3.1.2.1: `prompt=login` and `max_age` ask for a recent
 * login. A login made after the request was sent to /login satisfies both,
 * however long the way back took (within the marker's hour).
 */
function needsFreshLogin(req: AuthorizationRequest, loginAfter: number | undefined, session: SessionContext, now: Date): boolean {
  if (isLoginForRequest(loginAfter, session)) return false;
  if (asksForLogin(req)) return true;
  return req.maxAge !== undefined && secondsSince(session.authTime, now) > req.maxAge;
}

/** Whole seconds from `then` to `now`, as `auth_time` and `max_age` count. */
function secondsSince(then: Date, now: Date): number {
  return Math.floor(now.getTime() / 1000) - Math.floor(then.getTime() / 1000);
}

const OTHER_THAN_HINTED = 'The logged-in user is not the one the id_token_hint names.';
const OTHER_THAN_CLAIMED = 'The logged-in user is not the one the sub value of the claims parameter names.';

/**
 * OpenID Connect Core §3.1.2.1, §5.5.1: the request's `id_token_hint`, or the `sub` value
 * of its `claims` parameter, names another member than the session's.
 */
function isOtherThanHinted(req: AuthorizationRequest, session: SessionContext): boolean {
  return req.hintedSubject !== undefined && req.hintedSubject !== String(session.user.id);
}

/**
 * The same request's parameters, GET or POST alike. When it asks for
 * a fresh login, it is marked (`login_after` set to now) so that the login
 * about to happen satisfies it instead of sending the user back to /login in
 * a loop. `prompt=login` stays: coming back without that login (the marked
 * URL opened again, the login page left) is sent to /login again, as is a
 * marker over its hour. A request with an `id_token_hint` is marked too: when
 * the login about to happen is another member's than the hinted one, the
 * client gets `login_required` rather than another round.
 */
function parametersAfterLogin(req: AuthorizationRequest, marker: string): Record<string, string> {
  if (!asksForLogin(req) && req.maxAge === undefined && req.hintedSubject === undefined) return req.parameters;
  return { ...req.parameters, [LOGIN_AFTER_PARAMETER]: marker };
}

/**
 * The prompts the login page answers (OpenID Connect Core §3.1.2.1): `login`, and `select_account`,
 * whose account the member selects by signing in with it there (any account's email and password;
 * the session is another member's from then on), as `prompt=login` asks; never passed over by a live session.
 */
const LOGIN_PROMPTS: ReadonlySet<string> = new Set(['login', 'select_account']);

function asksForLogin(req: AuthorizationRequest): boolean {
  return [...LOGIN_PROMPTS].some((prompt) => req.prompt.has(prompt));
}

function authorizeUrl(parameters: Record<string, string>): string {
  return `/oauth/authorize?${new URLSearchParams(parameters).toString()}`;
}
