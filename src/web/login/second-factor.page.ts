/**
 * `/login/second-factor`: the second step of a login, and the step-up an app
 * asks for (docs/oauth.md, "Step-up"). After a correct password the browser
 * holds only a pending login (accounts/one-time-codes/pending-logins.ts); a
 * right one-time or recovery code starts the session with amr
 * `pwd otp mfa`. In step-up mode the browser already has a session: a right
 * code renews its id and methods (same `sid` and `auth_time`: see
 * `completeStep`). Members with
 * passkeys also get the passkey button, which the passkey script wires to
 * `POST /login/second-factor/passkey` (JSON in and out, as `/login/passkey`):
 * their own passkey completes the step with the password's (or the
 * session's) methods and its own together (accounts/passkeys/passkey-second-step.ts).
 * A session signed in without the password (a passkey that verified nobody)
 * is not offered codes, which would add one more thing held (a code posted
 * all the same is refused unchecked), but a link to sign in again with the
 * password.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { completedByOneTimeCode, withOneTimeCode, type AuthenticationMethod } from '../../accounts/authentication-methods.ts';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { deviceCookieOf, setDeviceCookie } from '../../accounts/login-device-cookie.ts';
import { accountOf } from '../../accounts/login-throttle.ts';
import { AccountDisabled, InvalidCredentials, LoginThrottled, startSession, type LoginGuard } from '../../accounts/login.service.ts';
import { checkSecondFactor, findSecondFactors, WrongCode, type OneTimeCodeKeys } from '../../accounts/one-time-codes/one-time-codes.service.ts';
import { findPendingLogin, pendingLoginClaim, takePendingLogin, type PendingLogin } from '../../accounts/one-time-codes/pending-logins.ts';
import { PasskeyRejected } from '../../accounts/passkeys/passkey-authentication.ts';
import { proveSecondStepWithPasskey, type ProvedStep } from '../../accounts/passkeys/passkey-second-step.ts';
import { relyingPartyOf } from '../../accounts/passkeys/relying-party.ts';
import { safeReturnTo } from '../../accounts/return-to.ts';
import { SECOND_FACTOR_PATH } from '../../accounts/second-factor-requirement.ts';
import { renewRequestSession, sessionIdOf, setSessionCookies } from '../../accounts/session-http.ts';
import type { SessionContext } from '../../accounts/sessions.ts';
import { findUserById } from '../../accounts/users.repository.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { hostCookie } from '../../http/host-cookie.ts';
import { toLocation } from '../../http/location.ts';
import { requestingClientName } from '../../oauth/clients/requesting-client.ts';
import { AUTHORIZE_PATH, STEP_UP_CANCELLED } from '../../oauth/step-up.ts';
import { throttledMessage } from './throttled.ts';
import { noteSecondFactor } from '../../ops/metrics.ts';
import { localeOf } from '../language/locale.ts';
import { AuthenticationResponse } from '../passkey-schemas.ts';

export const PENDING_LOGIN_COOKIE = 'fs_pending_login';

/**
 * The pending login's cookie: `__Host-fs_pending_login` with `Path=/` in production (http/host-cookie.ts),
 * so that a sibling subdomain cannot put a pending login of its own in its place; over http
 * `fs_pending_login` under the step's path.
 */
export function pendingLoginCookie(config: Config): { name: string; path: string } {
  return config.isProduction ? { name: hostCookie(true, PENDING_LOGIN_COOKIE), path: '/' } : { name: PENDING_LOGIN_COOKIE, path: SECOND_FACTOR_PATH };
}

/** Where the page's passkey button sends the assertion: under the step's path, so that the pending login's cookie comes along. */
export const SECOND_FACTOR_PASSKEY_PATH = `${SECOND_FACTOR_PATH}/passkey`;

export interface SecondFactorPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
  keys: OneTimeCodeKeys;
}

const CodeForm = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 100 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
});

const PasskeyBody = Type.Object({
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
  return_to: Type.Optional(Type.String({ maxLength: 8192 })),
  response: AuthenticationResponse,
});

/** Who the step is for: a pending login, or (step-up) the browser's session. */
type Step = { pending: PendingLogin; userId: number; returnTo: string } | { session: SessionContext; userId: number; returnTo: string };

/** What the step has proved already: the password of a pending login, or the session's methods. */
function priorMethods(step: Step): readonly string[] {
  return 'session' in step ? step.session.amr : ['pwd'];
}

export const secondFactorPage: FastifyPluginAsyncTypebox<SecondFactorPageOptions> = async (app, { config, db, clock, loginGuard, keys }) => {
  const pendingCookie = pendingLoginCookie(config);
  const pendingLoginIdOf = (request: FastifyRequest) => request.cookies[pendingCookie.name];
  const clearPendingLoginCookie = (reply: FastifyReply) => reply.clearCookie(pendingCookie.name, {
    path: pendingCookie.path, httpOnly: true, sameSite: 'lax', secure: config.isProduction,
  });
  const stepOf = async (request: FastifyRequest, returnTo: unknown): Promise<Step | undefined> => {
    const pending = await findPendingLogin(db, clock, pendingLoginIdOf(request));
    if (pending) return { pending, userId: pending.userId, returnTo: pending.returnTo };
    const session = await request.getSession();
    return session ? { session, userId: session.user.id, returnTo: safeReturnTo(returnTo, config.publicUrl) ?? '/' } : undefined;
  };

  const render = async (request: FastifyRequest, reply: FastifyReply, step: Step, view: { error?: string } = {}, status = 200) => {
    const factors = await findSecondFactors(db, step.userId);
    // A step-up to `phr` (authorize.ts): a code would not meet it, only a passkey does.
    const passkeyOnly = 'session' in step && (request.query as { passkey?: string } | undefined)?.passkey === 'only';
    // Signed in without the password: a code would be a second thing held, not a second factor.
    const withoutPassword = !completedByOneTimeCode(priorMethods(step));
    const hasCodes = factors.totp && !passkeyOnly && !withoutPassword;
    const hasPasskeys = factors.passkeys > 0;
    // The app's language (`ui_locales`, login.page.ts secondStepUrl) goes on with the page's own requests: a wrong code's page, the lockout mail.
    const uiLocales = (request.query as { ui_locales?: unknown } | undefined)?.ui_locales;
    const languageQuery = typeof uiLocales === 'string' ? `?${new URLSearchParams({ ui_locales: uiLocales.slice(0, 200) }).toString()}` : '';
    return reply.render('second-factor', {
      ...view, csrfToken: await formToken(request, reply, config), returnTo: step.returnTo, stepUp: 'session' in step,
      intro: await introOf(reply, step, hasCodes, hasPasskeys), action: `${SECOND_FACTOR_PATH}${languageQuery}`,
      hasCodes, hasPasskeys, passkeyPath: `${SECOND_FACTOR_PASSKEY_PATH}${languageQuery}`,
      signInAgain: withoutPassword && !passkeyOnly ? `/login?${new URLSearchParams({ return_to: step.returnTo }).toString()}` : undefined,
      ...cancelOf(step),
    }, status);
  };

  /**
   * What the page asks for, after who asks: the password just proved (a login's second step), or the app a
   * step-up is for, by its registered name; nobody, for a step-up not on an app's behalf.
   */
  const introOf = async (reply: FastifyReply, step: Step, hasCodes: boolean, hasPasskeys: boolean): Promise<string> => {
    const t = reply.translator();
    const app = 'session' in step ? await requestingClientName(db, step.returnTo, config.publicUrl, clock()) : undefined;
    const lead = !('session' in step) ? t('secondFactor.lead.login')
      : app === undefined ? undefined : app === null ? t('secondFactor.lead.unknownApp') : t('secondFactor.lead.app', { app });
    const ask = !hasCodes ? (hasPasskeys ? 'secondFactor.passkeyOnly' : 'secondFactor.passwordAgain') : hasPasskeys ? 'secondFactor.ask.codeOrPasskey' : 'secondFactor.ask.code';
    return lead === undefined ? t(ask) : `${lead} ${t(ask)}`;
  };

  /**
   * The way out: a login's second step back to the login, with the page it was for (an app's request
   * among them); an app's step-up back to the app, which answers it `access_denied` (authorize.ts).
   */
  const cancelOf = (step: Step): { cancelTo?: string; cancelToApp?: boolean; cancelPending?: boolean } => {
    // A login's second step cancels by a form (cancelPending): the half-finished login is deleted, not left to expire.
    if (!('session' in step)) return { cancelPending: true };
    const target = new URL(step.returnTo, config.publicUrl);
    if (target.pathname !== AUTHORIZE_PATH) return {};
    target.searchParams.set(STEP_UP_CANCELLED.name, STEP_UP_CANCELLED.value);
    return { cancelTo: `${target.pathname}${target.search}`, cancelToApp: true };
  };

  app.get(SECOND_FACTOR_PATH, { schema: { querystring: Type.Object({
    return_to: Type.Optional(Type.String({ maxLength: 8192 })), passkey: Type.Optional(Type.Literal('only')),
    // The language of the app's request (login.page.ts secondStepUrl), read by the page's locale.
    ui_locales: Type.Optional(Type.String({ maxLength: 200 })),
  }) } }, async (request, reply) => {
    const step = await stepOf(request, request.query.return_to);
    if (!step) return reply.redirect('/login', 303);
    return render(request, reply, step);
  });

  /** Cancelling a login's second step: the half-finished login (the password proved) is gone, then the login page with its request. */
  app.post(`${SECOND_FACTOR_PATH}/cancel`, { schema: { body: Type.Object({ csrf_token: Type.Optional(Type.String({ maxLength: 200 })) }) } }, async (request, reply) => {
    const pending = await findPendingLogin(db, clock, pendingLoginIdOf(request));
    if (!pending) return reply.redirect('/login', 303);
    if (!(await isValidFormToken(request, request.body.csrf_token))) return reply.redirect(SECOND_FACTOR_PATH, 303);
    await takePendingLogin(db, clock, pendingLoginIdOf(request));
    clearPendingLoginCookie(reply);
    return reply.redirect(pending.returnTo === '/' ? '/login' : `/login?${new URLSearchParams({ return_to: pending.returnTo }).toString()}`, 303);
  });

  app.post(SECOND_FACTOR_PATH, { schema: { body: CodeForm } }, async (request, reply) => {
    const step = await stepOf(request, request.body.return_to);
    if (!step) return reply.redirect('/login', 303);
    const t = reply.translator();
    if (!(await isValidFormToken(request, request.body.csrf_token))) return render(request, reply, step, { error: t('login.csrf') }, 403);
    const code = request.body.code?.trim() ?? '';
    if (code === '') return render(request, reply, step, { error: t('secondFactor.missing') }, 400);
    // Not offered to a session signed in without the password (render above): refused unchecked, counted nowhere.
    if (!completedByOneTimeCode(priorMethods(step))) return render(request, reply, step, { error: t('secondFactor.passwordAgain') }, 400);
    const user = 'session' in step ? step.session.user : await findUserById(db, step.userId);
    if (!user) return reply.redirect('/login', 303);
    try {
      const kind = await checkSecondFactor(db, keys, clock, loginGuard, {
        userId: user.id, email: user.email, mailLocale: config.mail.mode === 'off' ? undefined : localeOf(request),
        code, ip: request.ip, deviceCookie: deviceCookieOf(request, config), stepUp: 'session' in step, log: request.events,
      });
      noteSecondFactor(request, kind === 'otp' ? 'code' : 'recovery_code');
      if ('session' in step) noteSecondFactor(request, 'step_up');
    } catch (error) {
      if (error instanceof LoginThrottled) {
        return render(request, reply, step, { error: throttledMessage(reply, error) }, 429);
      }
      if (!(error instanceof WrongCode)) throw error;
      noteSecondFactor(request, 'failure');
      return render(request, reply, step, { error: t('secondFactor.wrong') }, 401);
    }
    if (!(await completeStep(request, reply, step, user.email, withOneTimeCode(priorMethods(step)), false))) return reply.redirect('/login', 303);
    return reply.redirect(toLocation(step.returnTo), 303);
  });

  /**
   * The session once every factor is right; false when the pending login or the session was gone by then.
   * - A pending login (the password just proved) is taken — once: of two right answers racing, one signs
   *   in — and starts the session (the browser's earlier one renewed or replaced) and the device cookie.
   * - A step-up with something held alone (a code, a passkey that verified nobody) renews the session's id
   *   with the stronger methods, and nothing else: the sign-in it adds to keeps its `auth_time` and expiry
   *   (NIST SP 800-63B §4.2.3: reauthentication needs the password or a biometric), so a key alone does not
   *   move an organisation member's 12 hours.
   * - A step-up with a passkey that verified its member (`wholeSignIn`) is a sign-in by itself: a new
   *   `auth_time`, as the login page's passkey gives.
   */
  const completeStep = async (
    request: FastifyRequest, reply: FastifyReply, step: Step, email: string, amr: readonly AuthenticationMethod[], wholeSignIn: boolean,
  ): Promise<boolean> => {
    if ('session' in step && !wholeSignIn) return renewRequestSession(request, reply, { config, db, clock }, amr);
    // Taken as the session begins, the member's row held: a password changed meanwhile deleted it, or waits and ends the session.
    const claim = 'pending' in step ? pendingLoginClaim(clock, pendingLoginIdOf(request)) : undefined;
    const started = await startSession(db, clock, loginGuard.deviceKey, {
      userId: step.userId, account: accountOf(email), rememberMe: 'pending' in step ? step.pending.remember : step.session.remember,
      amr, ip: request.ip, userAgent: request.headers['user-agent'], previousSessionId: sessionIdOf(request),
      deviceCookie: deviceCookieOf(request, config), log: request.events, claim,
    }).catch((error: unknown) => {
      if (error instanceof InvalidCredentials || error instanceof AccountDisabled) return undefined;
      throw error;
    });
    if (!started) return false;
    const { session, deviceCookie } = started;
    setSessionCookies(reply, config, clock, session);
    // The device cookie says this browser completed a login with the password: not a step-up's to give.
    if (!('pending' in step)) return true;
    setDeviceCookie(reply, config, deviceCookie);
    clearPendingLoginCookie(reply);
    return true;
  };

  const rp = relyingPartyOf(config.publicUrl);
  const refuse = (reply: FastifyReply, status: number, error: string) => reply.code(status).header('cache-control', 'no-store').send({ error });

  app.post(SECOND_FACTOR_PASSKEY_PATH, { schema: { body: PasskeyBody } }, async (request, reply) => {
    const t = reply.translator();
    const token = request.body.csrf_token;
    if (token === undefined || !(await isValidFormToken(request, token))) return refuse(reply, 403, t('login.csrf'));
    const step = await stepOf(request, request.body.return_to);
    const user = step && ('session' in step ? step.session.user : await findUserById(db, step.userId));
    if (!step || !user) return refuse(reply, 401, t('secondFactor.expired'));
    let proved: ProvedStep;
    try {
      proved = await proveSecondStepWithPasskey(db, clock, loginGuard, rp, {
        response: request.body.response, boundTo: token, log: request.events, ip: request.ip, userId: user.id, email: user.email,
        priorAmr: priorMethods(step), deviceCookie: deviceCookieOf(request, config), stepUp: 'session' in step,
      });
    } catch (error) {
      if (error instanceof LoginThrottled) {
        return refuse(reply, 429, throttledMessage(reply, error));
      }
      if (error instanceof PasskeyRejected) {
        noteSecondFactor(request, 'failure');
        return refuse(reply, 401, t(error.reason === 'other-member' ? 'secondFactor.passkey.otherAccount' : 'secondFactor.passkey.failed'));
      }
      if (error instanceof AccountDisabled) return refuse(reply, 403, t('login.disabled'));
      throw error;
    }
    noteSecondFactor(request, 'passkey');
    if ('session' in step) noteSecondFactor(request, 'step_up');
    if (!(await completeStep(request, reply, step, user.email, proved.amr, proved.userVerified))) return refuse(reply, 401, t('secondFactor.expired'));
    return reply.header('cache-control', 'no-store').send({ location: toLocation(step.returnTo) });
  });
};
