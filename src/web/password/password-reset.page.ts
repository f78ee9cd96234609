/**
 * Resetting a forgotten password (accounts/password-reset.ts; docs/security.md,
 * "Resetting a forgotten password"). Not registered with `MAIL=off`.
 *
 * - `GET|POST /password/forgot`: ask for a link for an address
 *   (login/link-request.page.ts). The answer is the same, status and page,
 *   whether the address has an account and whether it asked too often.
 * - `GET /password/reset/<token>`: the link in the mail. It shows the form and
 *   uses nothing up: mail scanners fetch links.
 * - `POST /password/reset/<token>`: sets the new password (the rules broken
 *   are shown beside the field, the link kept), then goes to the login page
 *   with the pending `return_to`.
 *
 * The link's pages send `Referrer-Policy: no-referrer`, so the token does not
 * leave in a Referer header.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import type { LoginGuard } from '../../accounts/login.service.ts';
import { resetPassword } from '../../accounts/password-reset-completion.ts';
import { peekResetToken, requestResetMail, RESET_LINK_MINUTES } from '../../accounts/password-reset.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { toLocation } from '../../http/location.ts';
import { InvalidInput } from '../../invalid-input.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { localeOf } from '../language/locale.ts';
import { linkRequestPages, loginHref } from '../login/link-request.page.ts';

export interface PasswordResetPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
}

const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
const ResetForm = Type.Object({
  new_password: Type.Optional(Type.String({ maxLength: 4096 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
});

export const passwordResetPages: FastifyPluginAsyncTypebox<PasswordResetPageOptions> = async (app, { config, db, clock, loginGuard }) => {
  await app.register(linkRequestPages, {
    config, path: '/password/forgot', views: { form: 'password-forgot', sent: 'password-forgot-sent' }, minutes: RESET_LINK_MINUTES,
    send: (request) => requestResetMail(db, clock, loginGuard.attempts, request),
  });

  app.get('/password/reset/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    void reply.header('referrer-policy', 'no-referrer');
    const live = await peekResetToken(db, request.params.token, clock());
    if (!live) {
      logSecurityEvent(request.events, { event: 'account.password_reset.invalid', ip: request.ip });
      return reply.render('password-reset', { invalid: true }, 410);
    }
    const action = `/password/reset/${encodeURIComponent(request.params.token)}`;
    return reply.render('password-reset', { csrfToken: await formToken(request, reply, config), action, email: live.email });
  });

  app.post('/password/reset/:token', { schema: { params: TokenParams, body: ResetForm } }, async (request, reply) => {
    void reply.header('referrer-policy', 'no-referrer');
    const { token } = request.params;
    const t = reply.translator();
    const action = `/password/reset/${encodeURIComponent(token)}`;
    const again = async (status: number, view: { error?: string; passwordError?: string }) => {
      const live = await peekResetToken(db, token, clock());
      if (!live) return reply.render('password-reset', { invalid: true }, 410);
      return reply.render('password-reset', { csrfToken: await formToken(request, reply, config), action, email: live.email, ...view }, status);
    };
    if (!(await isValidFormToken(request, request.body.csrf_token))) return again(403, { error: t('login.csrf') });
    try {
      const done = await resetPassword(db, clock, loginGuard.attempts, {
        token, newPassword: request.body.new_password ?? '', ip: request.ip, log: request.events, mailLocale: localeOf(request),
      });
      if (!done) return await reply.render('password-reset', { invalid: true }, 410);
      const returnTo = safeReturnTo(done.returnTo, config.publicUrl) ?? '/';
      return await reply.redirect(toLocation(loginHref(returnTo, 'reset')), 303);
    } catch (error) {
      if (!(error instanceof InvalidInput)) throw error;
      return again(400, { passwordError: t(`security.password.${error.errors[0]!.message}`) });
    }
  });
};
