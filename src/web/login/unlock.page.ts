/**
 * Unlocking a login by email (accounts/login-unlock.ts; docs/security.md,
 * "Unlocking a login by email"). Not registered with `MAIL=off`.
 *
 * - `GET|POST /login/unlock`: ask for a link for an address (link-request.page.ts).
 *   The answer is the same whether the address has an account, and whether it asked too often.
 * - `GET /login/unlock/<token>`: the link in the mail. It only shows a button
 *   (or, for a used, expired or altered link, says so: 410): mail scanners
 *   fetch links, and a GET that consumed the token would spend it before the
 *   member's click.
 * - `POST /login/unlock/<token>`: consumes the token, gives this browser the
 *   account's device cookie and goes back to the login page (with the pending
 *   `return_to`), where the password is still needed.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { deviceCookieOf, deviceCookieAfterLogin, setDeviceCookie } from '../../accounts/login-device-cookie.ts';
import type { LoginGuard } from '../../accounts/login.service.ts';
import { isLiveUnlockToken, redeemUnlockToken, requestUnlockMail, UNLOCK_LINK_MINUTES } from '../../accounts/login-unlock.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { toLocation } from '../../http/location.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { linkRequestPages, loginHref } from './link-request.page.ts';

export interface UnlockPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
const ConfirmForm = Type.Object({ csrf_token: Type.Optional(Type.String({ maxLength: 200 })) });

export const unlockPages: FastifyPluginAsyncTypebox<UnlockPageOptions> = async (app, { config, db, clock, loginGuard }) => {
  await app.register(linkRequestPages, {
    config, path: '/login/unlock', views: { form: 'login-unlock', sent: 'login-unlock-sent' }, minutes: UNLOCK_LINK_MINUTES,
    send: (request) => requestUnlockMail(db, clock, loginGuard.attempts, request),
  });

  app.get('/login/unlock/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    void reply.header('referrer-policy', 'no-referrer');
    // Used, expired or altered: said now, not after the button (looking spends nothing).
    if (!(await isLiveUnlockToken(db, request.params.token, clock()))) {
      logSecurityEvent(request.events, { event: 'account.login.unlock_invalid', ip: request.ip });
      return reply.render('login-unlock-confirm', { invalid: true }, 410);
    }
    const action = `/login/unlock/${encodeURIComponent(request.params.token)}`;
    return reply.render('login-unlock-confirm', { csrfToken: await formToken(request, reply, config), action });
  });

  app.post('/login/unlock/:token', { schema: { params: TokenParams, body: ConfirmForm } }, async (request, reply) => {
    void reply.header('referrer-policy', 'no-referrer');
    const action = `/login/unlock/${encodeURIComponent(request.params.token)}`;
    if (!(await isValidFormToken(request, request.body.csrf_token))) {
      return reply.render('login-unlock-confirm', { csrfToken: await formToken(request, reply, config), action, error: reply.translator()('login.csrf') }, 403);
    }
    const redeemed = await redeemUnlockToken(db, request.params.token, clock());
    if (!redeemed) {
      logSecurityEvent(request.events, { event: 'account.login.unlock_invalid', ip: request.ip });
      return reply.render('login-unlock-confirm', { invalid: true }, 410);
    }
    setDeviceCookie(reply, config, deviceCookieAfterLogin(loginGuard.deviceKey, redeemed.account, deviceCookieOf(request, config)));
    logSecurityEvent(request.events, { event: 'account.login.unlocked', userId: redeemed.userId, ip: request.ip });
    const returnTo = safeReturnTo(redeemed.returnTo, config.publicUrl) ?? '/';
    return reply.redirect(toLocation(loginHref(returnTo, 'unlocked')), 303);
  });
};
