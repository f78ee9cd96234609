/** `/api/user/*`: JSON login for apps, logout, and the current user (SPEC §4). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { CurrentUserSchema, describeCurrentUser } from '../../accounts/current-user.ts';
import { deviceCookieOf, setDeviceCookie } from '../../accounts/login-device-cookie.ts';
import { AccountDisabled, InvalidCredentials, logIn, LoginThrottled, logOut, type LoginGuard } from '../../accounts/login.service.ts';
import { clearSessionCookies, sessionCookie, sessionIdOf, setSessionCookies } from '../../accounts/session-http.ts';
import { requireSession } from '../actor.ts';
import { ApiProblem } from '../plugin/problem.ts';
import { ProblemBodySchema, problemSchemaOf, ProblemSchema } from '../plugin/problem-schema.ts';
import { RETRY_AFTER, withHeaders } from '../plugin/response-headers.ts';
import { cookieChallenge } from '../../http/cookie-challenge.ts';

export interface UserRoutesOptions {
  config: Config;
  db: DB;
  clock: Clock;
  loginGuard: LoginGuard;
}

/** `auth.too-many-attempts`, with the unlock page when the account-wide limit refused (web/login/unlock.page.ts). */
const ThrottledProblemSchema = withHeaders(problemSchemaOf(Type.Composite([ProblemBodySchema, Type.Object({
  unlock: Type.Optional(Type.String({
    format: 'uri',
    description: 'Present when the account-wide limit refused: the page (under PUBLIC_URL) where the member asks for a link by email '
      + 'that unlocks logging in with the browser that follows it',
  })),
})], { title: 'LoginThrottledProblem' })), RETRY_AFTER);

/** The logged-in user, with the cookies of the new session (docs/api.md, "Logging in"). */
const LoggedInSchema = withHeaders(CurrentUserSchema, {
  'Set-Cookie': {
    type: 'string',
    description: 'fs_session (the session, HttpOnly), CSRF_TOKEN (its CSRF token, readable by scripts) and fs_device '
      + '(HttpOnly: this browser logged in to the account before), one Set-Cookie header each; in production the session '
      + 'and device cookies are __Host-fs_session and __Host-fs_device',
  },
}, 'the logged-in user, with the CSRF token of the new session');

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  rememberMe: Type.Optional(Type.Boolean({ default: false })),
}, { additionalProperties: false });

export const userRoutes: FastifyPluginAsyncTypebox<UserRoutesOptions> = async (api, { config, db, clock, loginGuard }) => {
  api.post('/user/login', {
    config: { csrf: false },
    schema: {
      tags: ['user'],
      operationId: 'logIn',
      summary: 'Log in with email and password; sets the session and CSRF_TOKEN cookies',
      body: LoginBody,
      response: { 200: LoggedInSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 429: ThrottledProblemSchema },
    },
  }, async (request, reply) => {
    const { email, password, rememberMe = false } = request.body;
    const result = await logIn(db, clock, loginGuard, {
      email, password, rememberMe, ip: request.ip, userAgent: request.headers['user-agent'],
      previousSessionId: sessionIdOf(request), deviceCookie: deviceCookieOf(request, config), log: request.events,
    }).catch((error: unknown) => { throw loginProblem(error, config); });
    // The JSON login takes a password only: a member with a second factor signs in through the login page.
    if ('secondFactor' in result) {
      // Its challenge names the page's login, where the second step is (http/cookie-challenge.ts).
      throw new ApiProblem(401, 'auth.second-factor-required', `This account has a second factor: log in at ${config.publicUrl}/login.`, undefined,
        { 'www-authenticate': cookieChallenge('/login', sessionCookie(config)) });
    }
    const { session, user, deviceCookie } = result;
    setSessionCookies(reply, config, clock, session);
    setDeviceCookie(reply, config, deviceCookie);
    return describeCurrentUser(db, user, session.csrfToken);
  });

  api.post('/user/logout', {
    config: { auth: 'required' },
    schema: {
      tags: ['user'],
      operationId: 'logOut',
      summary: 'End the session',
      response: { 204: Type.Null(), 401: ProblemSchema, 403: ProblemSchema },
    },
  }, async (request, reply) => {
    await logOut(db, sessionIdOf(request), clock(), { log: request.events, ip: request.ip });
    clearSessionCookies(reply, config);
    return reply.code(204).send(null);
  });

  api.get('/user/current', {
    config: { auth: 'required' },
    schema: {
      tags: ['user'],
      operationId: 'getCurrentUser',
      summary: 'The logged-in user and the CSRF token',
      response: { 200: CurrentUserSchema, 401: ProblemSchema },
    },
  }, async (request) => {
    const session = await requireSession(request);
    return describeCurrentUser(db, session.user, session.csrfToken);
  });
};

function loginProblem(error: unknown, config: Config): unknown {
  if (error instanceof InvalidCredentials) return new ApiProblem(401, 'auth.invalid-credentials', error.message);
  if (error instanceof AccountDisabled) return new ApiProblem(403, 'auth.account-disabled', error.message);
  if (error instanceof LoginThrottled) {
    // The account-wide limit, which anybody can fill: a browser can be unlocked by email (web/login/unlock.page.ts).
    const unlock = error.lockedBy === 'account' && config.mail.mode !== 'off' ? { unlock: `${config.publicUrl}/login/unlock` } : undefined;
    return new ApiProblem(429, 'auth.too-many-attempts', error.message, undefined, { 'retry-after': String(error.retryAfterSeconds) }, unlock);
  }
  return error;
}
