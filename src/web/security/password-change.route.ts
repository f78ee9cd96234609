/**
 * `POST /settings/security/password`: the member changes their password
 * (accounts/password-change.ts). Errors are shown beside their field on the
 * security page (`aria-invalid`, the summary focused), with nothing changed;
 * success comes back to the page with a notice of the sessions it ended.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { deviceCookieOf } from '../../accounts/login-device-cookie.ts';
import { LoginThrottled, minutesToWait, type LoginGuard } from '../../accounts/login.service.ts';
import { changePassword, PasswordChangeLapsed } from '../../accounts/password-change.ts';
import { renewRequestSession, sessionIdOf } from '../../accounts/session-http.ts';
import { findSession, type SessionContext } from '../../accounts/sessions.ts';
import type { Config } from '../../config.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { InvalidInput } from '../../invalid-input.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { localeOf } from '../language/locale.ts';
import { pageSession } from '../page-access.ts';

const PAGE = '/settings/security';

/** What the page shows besides the sessions. */
export interface SecurityView {
  ended?: number | undefined;
  changed?: number | undefined;
  /** The password form's errors, by field, already in the page's language. */
  passwordErrors?: Partial<Record<'current_password' | 'new_password', string>>;
  /** A refusal of the whole form (CSRF, too many attempts). */
  passwordAlert?: string;
}

export interface PasswordChangeDeps {
  config: Config;
  db: DB;
  /** Whether mail is sent at all (MAIL=off: no "password changed" mail). */
  mailEnabled: boolean;
  clock: Clock;
  loginGuard: LoginGuard;
  render(request: FastifyRequest, reply: FastifyReply, session: SessionContext, view: SecurityView, status?: number): Promise<FastifyReply>;
}

const PasswordForm = Type.Object({
  current_password: Type.Optional(Type.String({ maxLength: 4096 })),
  new_password: Type.Optional(Type.String({ maxLength: 4096 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
});

export function passwordChangeRoute(app: FastifyInstance, { config, db, mailEnabled, clock, loginGuard, render }: PasswordChangeDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(`${PAGE}/password`, { schema: { body: PasswordForm } }, async (request, reply) => {
    const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
    if (!session) return reply;
    const t = reply.translator();
    if (!(await isValidFormToken(request, request.body.csrf_token))) return render(request, reply, session, { passwordAlert: t('security.csrf') }, 403);
    try {
      const ended = await changePassword(db, clock, loginGuard, {
        userId: session.user.id, email: session.user.email, sid: session.sid, ip: request.ip, log: request.events,
        currentPassword: request.body.current_password ?? '', newPassword: request.body.new_password ?? '', deviceCookie: deviceCookieOf(request, config),
        mailLocale: mailEnabled ? localeOf(request) : undefined,
      });
      logSecurityEvent(request.events, { event: 'account.password.changed', userId: session.user.id, ...ended });
      // The other sessions ended; this one continues under a new id (OWASP: renew the id after a privilege change).
      await renewRequestSession(request, reply, { config, db, clock });
      return reply.redirect(`${PAGE}?changed=${ended.sessionsEnded}`, 303);
    } catch (error) {
      if (error instanceof LoginThrottled) {
        void reply.header('retry-after', String(error.retryAfterSeconds));
        return render(request, reply, session, { passwordAlert: t('security.password.throttled', { minutes: minutesToWait(error.retryAfterSeconds) }) }, 429);
      }
      // Overtaken (a reset, another tab, the sessions ended): the later word stands. A session ended meanwhile is
      // shown nothing more of the account; one still live is told on the page.
      if (error instanceof PasswordChangeLapsed) {
        if (!(await findSession(db, clock, sessionIdOf(request) ?? ''))) return reply.redirect('/login', 303);
        return render(request, reply, session, { passwordAlert: t('security.password.lapsed') }, 409);
      }
      if (!(error instanceof InvalidInput)) throw error;
      const passwordErrors = Object.fromEntries(error.errors.map((e) => [e.field, t(`security.password.${e.message}`)]));
      return render(request, reply, session, { passwordErrors }, 400);
    }
  });
}
