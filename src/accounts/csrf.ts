/**
 * CSRF tokens (SPEC §4). With a session, the token is the session's own
 * random token. Before login (the login form), it is a double-submit value:
 * the hidden field must equal the pre-login cookie, which another site can
 * neither read nor set, and in production (`__Host-CSRF_TOKEN`) neither can
 * a sibling subdomain (session-http.ts `preLoginCsrfCookie`).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { setPreLoginCsrfCookie } from './session-http.ts';
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
  const existing = request.cookies[request.preLoginCsrfCookie];
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomToken();
  setPreLoginCsrfCookie(reply, config, token);
  return token;
}

/** Whether a submitted form carries the right token for this browser. */
export async function isValidFormToken(request: FastifyRequest, presented: unknown): Promise<boolean> {
  const session = await request.getSession();
  const expected = session ? session.csrfToken : request.cookies[request.preLoginCsrfCookie];
  return expected !== undefined && expected !== '' && tokensMatch(expected, presented);
}
