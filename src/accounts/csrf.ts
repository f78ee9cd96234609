/**
 * CSRF tokens (SPEC §4). With a session, the token is the session's own
 * random token. Before login (the login form), it is a double-submit value:
 * the hidden field must equal the `CSRF_TOKEN` cookie, which another site can
 * neither read nor set.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { CSRF_COOKIE, setCsrfCookie } from './session-http.ts';
import { randomToken } from './sessions.ts';

export function tokensMatch(expected: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token to embed in a form on this page, setting the cookie when needed. */
export async function formToken(request: FastifyRequest, reply: FastifyReply, config: Config): Promise<string> {
  const session = await request.getSession();
  if (session) return session.csrfToken;
  const existing = request.cookies[CSRF_COOKIE];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  setCsrfCookie(reply, config, token);
  return token;
}

/** Whether a submitted form carries the right token for this browser. */
export async function isValidFormToken(request: FastifyRequest, presented: unknown): Promise<boolean> {
  const session = await request.getSession();
  const expected = session ? session.csrfToken : request.cookies[CSRF_COOKIE];
  return expected !== undefined && expected !== '' && tokensMatch(expected, presented);
}
