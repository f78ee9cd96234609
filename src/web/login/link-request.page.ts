/**
 * The form that asks for a link by mail, shared by unlocking a login
 * (unlock.page.ts, `/login/unlock`) and resetting a password
 * (password/password-reset.page.ts, `/password/forgot`); accounts/mailed-link.ts
 * for what asking does.
 *
 * - `GET <path>`: the form, for a pending `return_to`.
 * - `POST <path>`: asks for the link. The answer, status and page, is the
 *   same whether the address has an account and whether it asked too often;
 *   only a form error (CSRF, no address) shows the form again.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import type { LinkMailRequest } from '../../accounts/mailed-link.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import type { Config } from '../../config.ts';
import { localeOf } from '../language/locale.ts';

export interface LinkRequestOptions {
  config: Config;
  path: '/login/unlock' | '/password/forgot';
  /** The form's view, and the view that says a link is on its way (with `minutes`). */
  views: { form: string; sent: string };
  /** How long the link works. */
  minutes: number;
  /** Asks for the link (login-unlock.ts `requestUnlockMail`, password-reset.ts `requestResetMail`). */
  send(request: LinkMailRequest): Promise<void>;
}

const LinkForm = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 1000 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
});

/** The login page for this `return_to`; `notice` says on it what has just happened. */
export function loginHref(returnTo: string, notice?: 'unlocked' | 'reset'): string {
  const query = new URLSearchParams(returnTo === '/' ? {} : { return_to: returnTo });
  if (notice) query.set(notice, '1');
  const search = query.toString();
  return search === '' ? '/login' : `/login?${search}`;
}

export const linkRequestPages: FastifyPluginAsyncTypebox<LinkRequestOptions> = async (app, { config, path, views, minutes, send }) => {
  app.get(path, {
    schema: { querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 8192 })) }) },
  }, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to, config.publicUrl) ?? '/';
    return reply.render(views.form, { csrfToken: await formToken(request, reply, config), returnTo, loginHref: loginHref(returnTo) });
  });

  app.post(path, { schema: { body: LinkForm } }, async (request, reply) => {
    const form = request.body;
    const returnTo = safeReturnTo(form.return_to, config.publicUrl) ?? '/';
    const email = form.email?.trim() ?? '';
    const t = reply.translator();
    const again = async (status: number, error: string, emailMissing = false) => reply.render(views.form, {
      csrfToken: await formToken(request, reply, config), returnTo, email, error, emailMissing, loginHref: loginHref(returnTo),
    }, status);
    if (!(await isValidFormToken(request, form.csrf_token))) return again(403, t('login.csrf'));
    if (email === '') return again(400, t('login.missingEmail'), true);
    await send({ email, locale: localeOf(request), returnTo, ip: request.ip, log: request.events });
    return reply.render(views.sent, { minutes, loginHref: loginHref(returnTo) });
  });
};
