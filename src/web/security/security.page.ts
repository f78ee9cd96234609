/**
 * `/settings/security` (SPEC §10; OWASP Session Management Cheat Sheet): the
 * member's live sessions — browser and system, the network shortened, when
 * each began and was last used, this device marked — and ending one of them
 * or every other one, as a logout ends a session: the grants issued under it
 * are revoked and the apps it signed into are told (back-channel logout).
 * The password change form (password-change.route.ts) is on the same page.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { describeDevice } from '../../accounts/session-device.ts';
import { listSessionsOfUser, type ActiveSession } from '../../accounts/session-list.ts';
import type { LoginGuard } from '../../accounts/login.service.ts';
import { endSessionsOfUser, type SessionContext, type SessionScope } from '../../accounts/sessions.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';
import type { Translate } from '../i18n.ts';
import { localeOf } from '../language/locale.ts';
import { pageSession } from '../page-access.ts';
import { passkeysSection, PASSKEY_NOTICES } from './passkeys.section.ts';
import { passwordChangeRoute, type SecurityView } from './password-change.route.ts';
import { oneTimeCodesSection, oneTimeCodesView, type OneTimeCodesView } from './one-time-codes.section.ts';
import type { OneTimeCodeKeys } from '../../accounts/one-time-codes/one-time-codes.service.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import { factorChangeNow, signInAgainHref } from '../../accounts/recent-sign-in.ts';

/** What the sections other than sessions and password leave to show. */
interface SectionViews {
  otp?: Partial<OneTimeCodesView>;
}

export interface SecurityPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
  oneTimeCodeKeys: OneTimeCodeKeys;
}

const PAGE = '/settings/security';
const SID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

const EndForm = Type.Object({
  sid: Type.Optional(Type.String({ maxLength: 200 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
});

export const securityPage: FastifyPluginAsyncTypebox<SecurityPageOptions> = async (app, { config, db, clock, loginGuard, oneTimeCodeKeys }) => {
  const passkeys = passkeysSection(app, { config, db, clock });
  /** The whole page, with what a form left to show (its errors, a notice); each section adds its own state. */
  const render = async (request: FastifyRequest, reply: FastifyReply, session: SessionContext, view: SecurityView & SectionViews, status = 200) => {
    const t = reply.translator();
    const sessions = await listSessionsOfUser(db, session.user.id, clock());
    const { otp } = await oneTimeCodesView({ config, db, keys: oneTimeCodeKeys }, session);
    return reply.render('security', {
      ...view,
      otp: { ...otp, ...view.otp },
      ...await passkeys.view(request, session, t),
      // Adding or removing a factor needs a recent sign-in, with two factors once the member has a second one
      // (accounts/recent-sign-in.ts): else the sections offer signing in again.
      factorsChangeable: await factorChangeNow(db, session, clock()) === 'allowed', signInAgainHref: signInAgainHref(PAGE),
      sessions: sessions.map((s) => ({ ...s, device: deviceLabel(s, t), isCurrent: s.sid === session.sid })),
      csrfToken: await formToken(request, reply, config),
      dateFormat: new Intl.DateTimeFormat(localeOf(request) === 'en' ? 'en-GB' : 'de-DE', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' }),
    }, status);
  };

  app.get(PAGE, {
    schema: { querystring: Type.Object({
      ended: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })), changed: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
      otp: Type.Optional(Type.Literal('off')), return_to: Type.Optional(Type.String({ maxLength: 8192 })),
      passkey: Type.Optional(Type.Union(PASSKEY_NOTICES.map((n) => Type.Literal(n)))),
    }) },
  }, async (request, reply) => {
    const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
    if (!session) return reply;
    const returnTo = safeReturnTo(request.query.return_to, config.publicUrl);
    return render(request, reply, session, {
      ended: request.query.ended, changed: request.query.changed, otp: { ...(returnTo ? { returnTo } : {}), ...(request.query.otp ? { turnedOff: true } : {}) },
    });
  });

  oneTimeCodesSection(app, { config, db, clock, loginGuard, keys: oneTimeCodeKeys, render });

  passwordChangeRoute(app, { config, db, mailEnabled: config.mail.mode !== 'off', clock, loginGuard, render });

  const endRoute = (path: string, scopeOf: (sid: string | undefined, current: string) => SessionScope | undefined) =>
    app.post(path, { schema: { body: EndForm } }, async (request, reply) => {
      const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
      if (!session) return reply;
      const t = reply.translator();
      const back = { href: PAGE, text: t('security.title') };
      if (!(await isValidFormToken(request, request.body.csrf_token))) return reply.render('error', { message: t('security.csrf'), link: back }, 403);
      const scope = scopeOf(request.body.sid, session.sid);
      const ended = scope && await endSessionsOfUser(db, session.user.id, clock(), scope);
      if (!ended || ended.sessionsEnded === 0) return reply.render('error', { message: t('security.notFound'), link: back }, 404);
      logSecurityEvent(request.events, { event: 'account.sessions.ended', userId: session.user.id, scope: scope.only === undefined ? 'others' : 'one', ...ended });
      // Ending this device's own session is a logout: the login page comes next.
      return reply.redirect(scope.only === session.sid ? '/login' : `${PAGE}?ended=${ended.sessionsEnded}`, 303);
    });

  endRoute(`${PAGE}/sessions/end`, (sid) => (sid !== undefined && SID_PATTERN.test(sid) ? { only: sid } : undefined));
  endRoute(`${PAGE}/sessions/end-others`, (_sid, current) => ({ except: current }));
};

/** "Firefox 133 on Windows 10 (Computer)", or the kind of device alone. */
export function deviceLabel(session: ActiveSession, t: Translate): string {
  const { browser, system, kind } = describeDevice(session.userAgent);
  const what = browser === undefined ? t('security.unknownBrowser') : system === undefined ? browser : t('security.on', { browser, system });
  return `${what} (${t(`security.kind.${kind}`)})`;
}
