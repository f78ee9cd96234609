/**
 * The REQUIRE_SECOND_FACTOR gate for pages (accounts/second-factor-requirement.ts;
 * `/api` has its own, answering a problem): a member whose role needs a
 * second factor and who has none is sent to /settings/security, which
 * brings them back (`return_to`) once one is set up.
 */
import type { FastifyInstance } from 'fastify';
import { ENROLMENT_PAGE, isReachableBeforeEnrolment, mustSetUpSecondFactor } from '../accounts/second-factor-requirement.ts';
import { SESSION_COOKIE } from '../accounts/session-http.ts';
import type { DB } from '../db/database.ts';

export function installSecondFactorGate(app: FastifyInstance, db: DB, requiredRoles: readonly number[]): void {
  if (requiredRoles.length === 0) return;
  app.addHook('onRequest', async (request, reply) => {
    const url = request.url;
    if (url === '/api' || url.startsWith('/api/') || request.cookies[SESSION_COOKIE] === undefined || isReachableBeforeEnrolment(url)) return;
    const session = await request.getSession();
    if (!session || !(await mustSetUpSecondFactor(db, requiredRoles, session))) return;
    const returnTo = request.method === 'GET' ? `?${new URLSearchParams({ return_to: url }).toString()}` : '';
    return reply.redirect(`${ENROLMENT_PAGE}${returnTo}#one-time-codes`, 303);
  });
}
