/**
 * Sessions over HTTP: the cookies, and `request.getSession()`, which looks the
 * session up at most once per request and only when a handler asks for it, so
 * endpoints that never need a session (token, JWKS, ...) never pay for one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/database.ts';
import type { AuthenticationMethod } from './authentication-methods.ts';
import { hostCookie } from '../http/host-cookie.ts';
import { DEVICE_COOKIE } from './login-device-cookie.ts';
import { SECOND_FACTOR_PATH } from './second-factor-requirement.ts';
import { findSession, renewSessionId, sessionDigest, type NewSession, type SessionContext } from './sessions.ts';

/** The session cookie's name outside production; `__Host-fs_session` in production ({@link sessionCookie}). */
export const SESSION_COOKIE = 'fs_session';
export const CSRF_COOKIE = 'CSRF_TOKEN';

/**
 * The session cookie's name: `__Host-fs_session` in production (http/host-cookie.ts), so that a sibling
 * subdomain can neither plant a session of its own (signing the member into the attacker's account) nor
 * shadow the member's with a longer `Path`.
 */
export function sessionCookie(config: Config): string {
  return hostCookie(config.isProduction, SESSION_COOKIE);
}

/**
 * The cookie of the forms' double-submit token before login (accounts/csrf.ts). In production it is
 * `__Host-CSRF_TOKEN` (http/host-cookie.ts), so that a sibling subdomain cannot plant a value of its own
 * and forge a login form; HttpOnly there: the pages write the token into their forms. Outside production
 * it is `CSRF_TOKEN`.
 */
export function preLoginCsrfCookie(config: Config): string {
  return hostCookie(config.isProduction, CSRF_COOKIE);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in session, or null. Memoised per request. */
    getSession(): Promise<SessionContext | null>;
    sessionLookup: Promise<SessionContext | null> | null;
    /** The name of the pre-login CSRF cookie ({@link preLoginCsrfCookie}). */
    preLoginCsrfCookie: string;
    /** The name of the session cookie ({@link sessionCookie}). */
    sessionCookie: string;
  }
}

export function installSessions(app: FastifyInstance, config: Config, db: DB, clock: Clock): void {
  app.decorateRequest('preLoginCsrfCookie', preLoginCsrfCookie(config));
  app.decorateRequest('sessionCookie', sessionCookie(config));
  app.decorateRequest('sessionLookup', null);
  app.decorateRequest('getSession', function getSession(this: FastifyRequest) {
    if (this.sessionLookup === null) {
      const id = sessionIdOf(this);
      this.sessionLookup = id ? findSession(db, clock, id).then((s) => s ?? null) : Promise.resolve(null);
    }
    return this.sessionLookup;
  });
}

/**
 * The session id this request's cookie holds, if any. The cookies are unparsed (null) on a request refused
 * before @fastify/cookie's hook ran (a closing server, a content-coded body): its error page is for nobody.
 */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  return request.cookies?.[request.sessionCookie];
}

/**
 * The session cookie's digest, for a statement that reads the session itself
 * (sessions.ts `liveSessionFrom`), when this request has not looked the
 * session up yet; undefined without a cookie that could be one, or once it has.
 */
export function unreadSessionDigest(request: FastifyRequest): Buffer | undefined {
  const id = sessionIdOf(request);
  return request.sessionLookup === null && id !== undefined ? sessionDigest(id) : undefined;
}

export function setSessionCookies(reply: FastifyReply, config: Config, clock: Clock, session: NewSession): void {
  const maxAge = session.remember ? Math.floor((session.expiresAt.getTime() - clock().getTime()) / 1000) : undefined;
  reply.setCookie(sessionCookie(config), session.id, {
    path: '/', httpOnly: true, sameSite: 'lax', secure: config.isProduction,
    ...(maxAge === undefined ? {} : { maxAge }),
  });
  setCsrfCookie(reply, config, session.csrfToken, maxAge);
  expirePlainNames(reply, config);
}

/** What production named its host-only cookies before they took the `__Host-` prefix, and their paths. */
const PLAIN_NAMES_BEFORE_HOST_PREFIX = [
  { name: SESSION_COOKIE, path: '/' }, { name: DEVICE_COOKIE, path: '/' }, { name: 'fs_pending_login', path: SECOND_FACTOR_PATH },
] as const;

/**
 * In production, an answer that sets or clears the session's cookies (a login, a renewal of the session's id,
 * a logout) also expires the plain-named cookies a browser kept from before the `__Host-` prefix (never read
 * there). Only these answers, which are `no-store` and set cookies anyway: on every answer, a cacheable one
 * (JWKS, an upload) would carry Set-Cookie too.
 */
function expirePlainNames(reply: FastifyReply, config: Config): void {
  if (!config.isProduction) return;
  for (const { name, path } of PLAIN_NAMES_BEFORE_HOST_PREFIX) {
    if (reply.request.cookies?.[name] !== undefined) reply.clearCookie(name, { path, httpOnly: true, secure: true, sameSite: 'lax' });
  }
}

/** Readable by the front end's script, which echoes it in `X-CSRF-Token`. */
export function setCsrfCookie(reply: FastifyReply, config: Config, token: string, maxAge?: number): void {
  reply.setCookie(CSRF_COOKIE, token, {
    path: '/', httpOnly: false, sameSite: 'lax', secure: config.isProduction,
    ...(maxAge === undefined ? {} : { maxAge }),
  });
}

/** The pre-login double-submit cookie ({@link preLoginCsrfCookie}); a session's forms use the session's token. */
export function setPreLoginCsrfCookie(reply: FastifyReply, config: Config, token: string): void {
  if (!config.isProduction) return setCsrfCookie(reply, config, token);
  reply.setCookie(preLoginCsrfCookie(config), token, { path: '/', httpOnly: true, sameSite: 'lax', secure: true });
}

export function clearSessionCookies(reply: FastifyReply, config: Config): void {
  const options = { path: '/', sameSite: 'lax', secure: config.isProduction } as const;
  reply.clearCookie(sessionCookie(config), { ...options, httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, options);
  expirePlainNames(reply, config);
}

/**
 * Renews this request's session id (sessions.ts `renewSessionId`): the new cookies are set on the
 * reply, and the rest of the request (a page rendered with its forms' CSRF token) sees the renewed
 * session. False when the session was no longer live.
 */
export async function renewRequestSession(
  request: FastifyRequest, reply: FastifyReply, deps: { config: Config; db: DB; clock: Clock }, amr?: readonly AuthenticationMethod[],
): Promise<boolean> {
  const session = await request.getSession();
  const id = sessionIdOf(request);
  if (!session || id === undefined) return false;
  const renewed = await renewSessionId(deps.db, deps.clock, id, session.user.id, amr);
  if (!renewed) return false;
  setSessionCookies(reply, deps.config, deps.clock, renewed);
  request.sessionLookup = Promise.resolve({ ...session, csrfToken: renewed.csrfToken, amr: amr ?? session.amr });
  return true;
}
