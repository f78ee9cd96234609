/** The HTML login page (SPEC §4); the JSON login for apps is `/api/user/login`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { deviceCookieOf, setDeviceCookie } from '../../accounts/login-device-cookie.ts';
import { AccountDisabled, InvalidCredentials, logIn, LoginThrottled, signInRefusal, type LoginGuard } from '../../accounts/login.service.ts';
import { relyingPartyOf } from '../../accounts/passkeys/relying-party.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import { sessionIdOf, setSessionCookies } from '../../accounts/session-http.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { toLocation } from '../../http/location.ts';
import { requestingClientName } from '../../oauth/clients/requesting-client.ts';
import { throttledMessage } from './throttled.ts';
import { innerQuery } from '../language/locale.ts';
import { holdPendingLogin, PENDING_LOGIN_SECONDS, type PendingLogin } from '../../accounts/one-time-codes/pending-logins.ts';
import { SECOND_FACTOR_PATH } from '../../accounts/second-factor-requirement.ts';
import { pendingLoginCookie } from './second-factor.page.ts';
import { passkeyLoginRoutes } from './passkey-login.route.ts';

export interface LoginPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
}

const LoginForm = Type.Object({
  email: Type.Optional(Type.String({ maxLength: 1000 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  remember: Type.Optional(Type.String({ maxLength: 10 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
});

/** OpenID Connect Core §3.1.2.1 `login_hint` of the authorization request the login is for: the email to prefill. */
function loginHintOf(returnTo: string): string | undefined {
  if (!returnTo.startsWith('/oauth/authorize?')) return undefined;
  const hint = innerQuery(returnTo).get('login_hint')?.trim();
  return hint === undefined || hint === '' || hint.length > 254 ? undefined : hint;
}

/**
 * The second step, in the language the app asked for (`ui_locales` of the request the login is for): its
 * `return_to` stays in the pending login, where the page's language is not looked for.
 */
function secondStepUrl(returnTo: string): string {
  const uiLocales = returnTo.startsWith('/oauth/authorize?') ? innerQuery(returnTo).get('ui_locales') : null;
  return uiLocales === null ? SECOND_FACTOR_PATH : `${SECOND_FACTOR_PATH}?${new URLSearchParams({ ui_locales: uiLocales.slice(0, 200) }).toString()}`;
}

/** The "Forgot your password?" link, keeping the pending `return_to`; none with `MAIL=off` (no mail, no reset). */
function forgotHref(config: Config, returnTo: string): string | undefined {
  if (config.mail.mode === 'off') return undefined;
  return returnTo === '/' ? '/password/forgot' : `/password/forgot?${new URLSearchParams({ return_to: returnTo }).toString()}`;
}

export const loginPage: FastifyPluginAsyncTypebox<LoginPageOptions> = async (app, { config, db, clock, loginGuard }) => {
  /**
   * For which app the login is, by its registered name, when it continues an app's request: to sign in
   * to it, or, for a member signed in already (`prompt=login`, `max_age`), to confirm who they are.
   */
  const forAppOf = async (request: FastifyRequest, reply: FastifyReply, returnTo: string): Promise<string | undefined> => {
    const app = await requestingClientName(db, returnTo, config.publicUrl, clock());
    if (app === undefined || app === null) return undefined;
    const signedIn = (await request.getSession()) !== null;
    return reply.translator()(signedIn ? 'login.forApp.again' : 'login.forApp', { app });
  };
  const askSecondFactor = async (reply: FastifyReply, login: PendingLogin, passwordHash: string) => {
    const id = await holdPendingLogin(db, clock, login, passwordHash);
    // The password changed, or the member was disabled, since it was checked: as if it had come first.
    if (id === 'disabled' || id === 'lapsed') throw signInRefusal(id, { log: reply.request.events, userId: login.userId, ip: reply.request.ip });
    const pending = pendingLoginCookie(config);
    reply.setCookie(pending.name, id, {
      path: pending.path, httpOnly: true, sameSite: 'lax', secure: config.isProduction, maxAge: PENDING_LOGIN_SECONDS,
    });
    return reply.redirect(secondStepUrl(login.returnTo), 303);
  };

  // Sign-in in a popup (oidc-client-ts, MSAL) passes through the login page: a
  // same-origin opener policy here would cut the popup off from its opener.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/login' || request.url.startsWith('/login?')) void reply.header('cross-origin-opener-policy', 'unsafe-none');
  });

  app.get('/login', {
    schema: { querystring: Type.Object({
      return_to: Type.Optional(Type.String({ maxLength: 8192 })),
      // Set by the unlock link (unlock.page.ts): say that the password is what is needed now.
      unlocked: Type.Optional(Type.Literal('1')),
      // Set by a password reset (web/password/password-reset.page.ts): the new password is what is needed now.
      reset: Type.Optional(Type.Literal('1')),
    }) },
  }, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to, config.publicUrl)
      ?? safeReturnTo(request.headers.referer, config.publicUrl) ?? '/';
    return reply.render('login', {
      csrfToken: await formToken(request, reply, config), returnTo, email: loginHintOf(returnTo), unlocked: request.query.unlocked === '1',
      passwordReset: request.query.reset === '1', forgotHref: forgotHref(config, returnTo), forApp: await forAppOf(request, reply, returnTo),
    });
  });

  app.post('/login', { schema: { body: LoginForm } }, async (request, reply) => {
    const form = request.body;
    const returnTo = safeReturnTo(form.return_to, config.publicUrl) ?? '/';
    const email = form.email?.trim() ?? '';
    const remember = form.remember === '1' || form.remember === 'on';
    const t = reply.translator();
    const again = async (status: number, error: string, unlockOffer = false) => reply.render('login', {
      csrfToken: await formToken(request, reply, config), returnTo, email, remember, error, unlockOffer,
      forgotHref: forgotHref(config, returnTo), forApp: await forAppOf(request, reply, returnTo),
    }, status);

    if (!(await isValidFormToken(request, form.csrf_token))) return again(403, t('login.csrf'));
    // Nothing to check: say what is missing rather than that a password is wrong.
    if (email === '' || (form.password ?? '') === '') return again(400, t('login.missing'));
    try {
      const result = await logIn(db, clock, loginGuard, {
        email, password: form.password ?? '', rememberMe: remember, ip: request.ip, userAgent: request.headers['user-agent'],
        previousSessionId: sessionIdOf(request), deviceCookie: deviceCookieOf(request, config), log: request.events,
      });
      // A second factor: no session yet, only the pending login the next step completes.
      if ('secondFactor' in result) return await askSecondFactor(reply, { userId: result.user.id, account: result.account, remember, returnTo }, result.passwordHash);
      const { session, deviceCookie } = result;
      setSessionCookies(reply, config, clock, session);
      setDeviceCookie(reply, config, deviceCookie);
      return reply.redirect(toLocation(returnTo), 303);
    } catch (error) {
      if (error instanceof LoginThrottled) {
        // The account-wide counter, which anybody can fill: this browser may be unlocked by email (unlock.page.ts).
        const unlockOffer = error.lockedBy === 'account' && config.mail.mode !== 'off';
        return again(429, throttledMessage(reply, error), unlockOffer);
      }
      if (error instanceof InvalidCredentials) return again(401, t('login.failed'));
      if (error instanceof AccountDisabled) return again(403, t('login.disabled'));
      throw error;
    }
  });

  passkeyLoginRoutes(app, { config, db, clock, loginGuard, rp: relyingPartyOf(config.publicUrl) });
};
