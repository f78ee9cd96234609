/**
 * `/device`, the verification URI of the device flow (RFC 8628 §3.3), as a
 * short list of steps over server-side state:
 *
 * 1. `GET /device[?user_code=…]`: the entry form, prefilled from
 *    `verification_uri_complete` but never submitted for the member (§3.3.1).
 * 2. `POST /device` (`step=check`): the code is looked up under the guessing
 *    limit; the confirmation page names the app asking (§5.4: "is this the
 *    code on your device?").
 * 3. `POST /device` (`step=confirm`): the member confirms; the user code is
 *    spent, and the browser gets a one-time continuation, the only thing the
 *    front channel carries from here on, and keeps it in a cookie: only the
 *    browser that confirmed may go on (confirmation-cookie.ts).
 * 4. `GET /device/approve?continuation=…`: the normal login round trip
 *    (`/login?return_to=`, whatever the login asks for), the region check,
 *    then the normal consent page, which posts to:
 * 5. `POST /device/approve`: allow or deny, once; then "return to your device".
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isValidFormToken } from '../../accounts/csrf.ts';
import type { AttemptCounters } from '../../accounts/login-attempt-counters.ts';
import { findMemberRegionIds } from '../../accounts/region-access.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import type { Config } from '../../config.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { formParameters, type RawParameters } from '../authorization-request.ts';
import type { AuthorizationPages } from '../authorization-pages.ts';
import { isInRequiredRegions } from '../checks/required-regions.ts';
import { findClientRow } from '../clients/clients.repository.ts';
import { confirmedDevicesCookie, isConfirmedHere, withConfirmedDevice } from '../device-authorization/confirmation-cookie.ts';
import { DEVICE_VERIFICATION_PATH } from '../device-authorization/device-authorization.ts';
import {
  confirmDevice, decide, findContinuation, lookUpUserCode, type DeviceVerificationDeps, type UserCodeAnswer,
} from '../device-authorization/device-verification.ts';
import type { DevicePages } from '../device-pages.ts';
import { derivedKeys } from '../keys/derived-keys.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { DEVICE_CODE_SECONDS } from '../lifetimes.ts';
import { isScope } from '../scopes.ts';
import { REGIONS_MESSAGE } from './authorize.ts';

export const DEVICE_APPROVE_PATH = `${DEVICE_VERIFICATION_PATH}/approve`;

export function deviceVerificationEndpoint(
  app: FastifyInstance, ctx: OAuthContext, pages: DevicePages, authorizationPages: AuthorizationPages, attempts: AttemptCounters, config: Config,
): void {
  const deps: DeviceVerificationDeps = { db: ctx.db, clock: ctx.clock, attempts, userCodeKey: derivedKeys(ctx.material).userCode };
  const confirmedCookie = confirmedDevicesCookie(config.isProduction);

  /** The entry form again, saying why; 429 with Retry-After past the guessing limit. */
  const refuse = (request: FastifyRequest, reply: FastifyReply, typed: string, answer: Exclude<UserCodeAnswer<unknown>, { kind: 'found' }>) => {
    if (answer.kind === 'limited') {
      void reply.header('retry-after', String(answer.retryAfterSeconds));
      return pages.entry(request, reply, { userCode: typed, problem: 'limited', retryAfterSeconds: answer.retryAfterSeconds }, 429);
    }
    return pages.entry(request, reply, { userCode: typed, problem: answer.kind }, 400);
  };

  const approveUrl = (continuation: string) => `${DEVICE_APPROVE_PATH}?${new URLSearchParams({ continuation }).toString()}`;

  /** Steps 2 and 3. */
  const submitCode = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters) => {
    const typed = typeof raw.user_code === 'string' ? raw.user_code.slice(0, 64) : '';
    if (!(await isValidFormToken(request, raw.csrf_token))) return pages.entry(request, reply, { userCode: typed, problem: 'expired-form' }, 403);
    const guess = { typed, ip: request.ip, log: request.events };
    if (raw.step === 'confirm') {
      const answer = await confirmDevice(deps, guess);
      if (answer.kind !== 'found') return refuse(request, reply, typed, answer);
      const { continuation } = answer.value;
      void reply.setCookie(confirmedCookie, withConfirmedDevice(request.cookies[confirmedCookie], continuation), {
        path: config.isProduction ? '/' : DEVICE_VERIFICATION_PATH, httpOnly: true, sameSite: 'lax', secure: config.isProduction, maxAge: DEVICE_CODE_SECONDS,
      });
      return reply.redirect(approveUrl(continuation), 303);
    }
    const answer = await lookUpUserCode(deps, guess);
    if (answer.kind !== 'found') return refuse(request, reply, typed, answer);
    return pages.confirm(request, reply, { userCode: answer.userCode, clientName: answer.value.clientName });
  };

  /**
   * The device authorization a continuation names, with its client, for a logged-in member in the browser that
   * confirmed its code; else the page already sent. A link from elsewhere stops here, before any login.
   */
  const continued = async (request: FastifyRequest, reply: FastifyReply, continuation: unknown) => {
    if (!isConfirmedHere(request.cookies[confirmedCookie], continuation)) {
      logSecurityEvent(request.events, { event: 'oauth.device.continuation_refused', ip: request.ip });
      return { sent: await pages.otherBrowser(request, reply) };
    }
    const session = await request.getSession();
    if (!session) {
      const back = typeof continuation === 'string' && continuation.length <= 100 ? approveUrl(continuation) : DEVICE_VERIFICATION_PATH;
      return { sent: await reply.redirect(`/login?return_to=${encodeURIComponent(back)}`, 303) };
    }
    const device = await findContinuation(deps, continuation);
    const client = device && await findClientRow(ctx.db, device.clientId);
    if (!device || !client) return { sent: await pages.expired(request, reply) };
    return { session, device, client, continuation: continuation as string };
  };

  /** Step 4: the region check, then the consent page. */
  const showConsent = async (request: FastifyRequest, reply: FastifyReply, continuation: unknown) => {
    const found = await continued(request, reply, continuation);
    if ('sent' in found) return found.sent;
    const { session, device, client } = found;
    const memberOf = await findMemberRegionIds(ctx.db, session.user.id, client.required_regions);
    if (!isInRequiredRegions(client.required_regions, memberOf)) {
      if (await decide(deps, { continuation, approved: false, session: sessionOf(session) })) {
        logSecurityEvent(request.events, { event: 'oauth.device.decided', userId: session.user.id, clientId: client.client_id, scopes: device.scopes, approved: false });
      }
      return pages.notInRequiredRegions(request, reply, { message: REGIONS_MESSAGE, clientName: client.name });
    }
    return authorizationPages.consent(request, reply, {
      clientName: client.name, scopes: device.scopes.filter(isScope), parameters: { continuation: found.continuation },
      origin: undefined, action: DEVICE_APPROVE_PATH, offerRemember: false,
    });
  };

  /** Step 5. */
  const answer = async (request: FastifyRequest, reply: FastifyReply, raw: RawParameters) => {
    const found = await continued(request, reply, raw.continuation);
    if ('sent' in found) return found.sent;
    if (!(await isValidFormToken(request, raw.csrf_token))) return authorizationPages.consentExpired(request, reply);
    const approved = raw.decision === 'allow';
    const { session, device, client } = found;
    if (!(await decide(deps, { continuation: found.continuation, approved, session: sessionOf(session) }))) return pages.expired(request, reply);
    logSecurityEvent(request.events, { event: 'oauth.device.decided', userId: session.user.id, clientId: client.client_id, scopes: device.scopes, approved });
    return pages.done(request, reply, { approved, clientName: client.name });
  };

  // The continuation is in the address: it must not leave in a Referer header.
  const noReferrer = async (_request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('referrer-policy', 'no-referrer');
  };
  app.get(DEVICE_VERIFICATION_PATH, (request, reply) => {
    const query = (request.query ?? {}) as RawParameters;
    const userCode = typeof query.user_code === 'string' ? query.user_code.slice(0, 64) : '';
    return pages.entry(request, reply, { userCode }, 200);
  });
  app.post(DEVICE_VERIFICATION_PATH, (request, reply) => submitCode(request, reply, formParameters(request.body)));
  app.get(DEVICE_APPROVE_PATH, { onRequest: noReferrer }, (request, reply) => showConsent(request, reply, ((request.query ?? {}) as RawParameters).continuation));
  app.post(DEVICE_APPROVE_PATH, { onRequest: noReferrer }, (request, reply) => answer(request, reply, formParameters(request.body)));
}

function sessionOf(session: SessionContext): { userId: number; authTime: Date; amr: readonly string[]; sid: string } {
  return { userId: session.user.id, authTime: session.authTime, amr: session.amr, sid: session.sid };
}
