/**
 * The REQUIRE_SECOND_FACTOR gate for pages (accounts/second-factor-requirement.ts;
 * `/api` has its own, answering a problem): a member whose role needs a
 * second factor and who has none is sent to /settings/security, which
 * brings them back (`return_to`) once one is set up; one who has it, but
 * whose session was signed in without it, is sent to prove it
 * (/login/second-factor, the step-up); one whose session is past its time
 * is sent to the login page. Each comes back the same way. The time limits
 * are checked on every path that may read the session, the login pages
 * included, so that none of them keeps a session alive past its time.
 * An app's silent authorization request (`prompt=none`, which forbids any
 * page: OpenID Connect Core §3.1.2.6) is not redirected: the authorization
 * endpoint sees no session and answers `login_required` at the app's
 * redirect URI.
 */
import type { FastifyInstance } from 'fastify';
import {
  ENROLMENT_PAGE, isReachableBeforeEnrolment, isReachableWithoutSession, isSessionless, SECOND_FACTOR_PATH, secondFactorDemand,
} from '../accounts/second-factor-requirement.ts';
import { sessionIdOf } from '../accounts/session-http.ts';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';

const PAGE_OF_DEMAND = { 'sign-in-again': '/login', enrol: ENROLMENT_PAGE, 'step-up': SECOND_FACTOR_PATH } as const;

/** `GET /oauth/authorize` with `prompt=none` (a form POST's body is not read yet here: it is sent to the page as any POST). */
function isSilentAuthorization(url: string, method: string, query: unknown): boolean {
  if (method !== 'GET' || !(url === '/oauth/authorize' || url.startsWith('/oauth/authorize?'))) return false;
  const prompt = (query as { prompt?: unknown } | undefined)?.prompt;
  return typeof prompt === 'string' && prompt.split(' ').includes('none');
}

export function installSecondFactorGate(app: FastifyInstance, db: DB, clock: Clock, requiredRoles: readonly number[]): void {
  if (requiredRoles.length === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const url = request.url;
    const sessionId = sessionIdOf(request);
    if (url === '/api' || url.startsWith('/api/') || sessionId === undefined || isSessionless(url)) return;
    const session = await request.getSession();
    const demand = session ? await secondFactorDemand(db, requiredRoles, session, sessionId, clock()) : undefined;
    if (demand === undefined) return;
    // Past its time, the session has been ended: the rest of the request sees none.
    if (demand === 'sign-in-again') request.sessionLookup = Promise.resolve(null);
    // No page may be shown: for the authorization endpoint, a session it may not use is none (login_required).
    if (isSilentAuthorization(url, request.method, request.query)) {
      request.sessionLookup = Promise.resolve(null);
      return;
    }
    // Only a member without any factor reaches the page that sets one up; a code of a factor the
    // session has just made itself would prove nothing of a member who has one.
    if (isReachableWithoutSession(url) || (demand === 'enrol' && isReachableBeforeEnrolment(url))) return;
    const returnTo = request.method === 'GET' ? `?${new URLSearchParams({ return_to: url }).toString()}` : '';
    return reply.redirect(`${PAGE_OF_DEMAND[demand]}${returnTo}${demand === 'enrol' ? '#one-time-codes' : ''}`, 303);
  });
}
