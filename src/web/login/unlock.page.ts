/**
 * Unlocking a login by email (accounts/login-unlock.ts; docs/security.md,
 * "Unlocking a login by email"). Not registered with `MAIL=off`.
 *
 * - `GET|POST /login/unlock`: ask for a link for an address. The answer is the
 *   same whether the address has an account, and whether it asked too often.
 * - `GET /login/unlock/<token>`: the link in the mail. It only shows a button:
 *   mail scanners fetch links, and a GET that consumed the token would spend
 *   it before the member's click.
 * - `POST /login/unlock/<token>`: consumes the token, gives this browser the
 *   account's device cookie and goes back to the login page (with the pending
 *   `return_to`), where the password is still needed.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { DEVICE_COOKIE, deviceCookieAfterLogin, setDeviceCookie } from '../../accounts/login-device-cookie.ts';
import type { LoginGuard } from '../../accounts/login.service.ts';
import { redeemUnlockToken, requestUnlockMail, UNLOCK_LINK_MINUTES } from '../../accounts/login-unlock.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { toLocation } from '../../http/location.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { localeOf } from '../language/locale.ts';

export interface UnlockPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
}

const UnlockForm = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 1000 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
});
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
const ConfirmForm = Type.Object({ csrf_token: Type.Optional(Type.String({ maxLength: 200 })) });

/** The login page for this `return_to`, as the unlock pages link back to it. */
function loginHref(returnTo: string, unlocked = false): string {
  const query = new URLSearchParams(returnTo === '/' ? {} : { return_to: returnTo });
  if (unlocked) query.set('unlocked', '1');
  const search = query.toString();
  return search === '' ? '/login' : `/login?${search}`;
}

export const unlockPages: FastifyPluginAsyncTypebox<UnlockPageOptions> = async (app, { config, db, clock, loginGuard }) => {
  app.get('/login/unlock', {
    schema: { querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 8192 })) }) },
  }, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to, config.publicUrl) ?? '/';
    return reply.render('login-unlock', { csrfToken: await formToken(request, reply, config), returnTo });
  });

  app.post('/login/unlock', { schema: { body: UnlockForm } }, async (request, reply) => {
    const form = request.body;
    const returnTo = safeReturnTo(form.return_to, config.publicUrl) ?? '/';
    const email = form.email?.trim() ?? '';
    const t = reply.translator();
    const again = async (status: number, error: string) => reply.render('login-unlock', {
      csrfToken: await formToken(request, reply, config), returnTo, email, error,
    }, status);
    if (!(await isValidFormToken(request, form.csrf_token))) return again(403, t('login.csrf'));
    if (email === '') return again(400, t('login.missing'));
    await requestUnlockMail(db, clock, loginGuard.attempts, { email, locale: localeOf(request), returnTo, ip: request.ip, log: request.events });
    return reply.render('login-unlock-sent', { minutes: UNLOCK_LINK_MINUTES, loginHref: loginHref(returnTo) });
  });

  app.get('/login/unlock/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    const action = `/login/unlock/${encodeURIComponent(request.params.token)}`;
    return reply.header('referrer-policy', 'no-referrer')
      .render('login-unlock-confirm', { csrfToken: await formToken(request, reply, config), action });
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
    setDeviceCookie(reply, config, deviceCookieAfterLogin(loginGuard.deviceKey, redeemed.account, request.cookies[DEVICE_COOKIE]));
    logSecurityEvent(request.events, { event: 'account.login.unlocked', userId: redeemed.userId, ip: request.ip });
    const returnTo = safeReturnTo(redeemed.returnTo, config.publicUrl) ?? '/';
    return reply.redirect(toLocation(loginHref(returnTo, true)), 303);
  });
};
