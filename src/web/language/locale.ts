/**
 * The language of a page, in this order:
 * 1. the member's own choice with the switch in the page frame (cookie);
 * 2. `ui_locales` (OpenID Connect Core §3.1.2.1) on the authorization request,
 *    also when it reaches the login page inside `return_to`, and the login's
 *    second step in its own query (login.page.ts `secondStepUrl`);
 * 3. `Accept-Language`, without the languages it gives q=0;
 * 4. German.
 */
import type { FastifyRequest } from 'fastify';
import { isLocale, pickLocale, pickUiLocale, type Locale } from '../i18n.ts';

export const LANGUAGE_COOKIE = 'fs_lang';

export function localeOf(request: FastifyRequest): Locale {
  const chosen = request.cookies?.[LANGUAGE_COOKIE];
  if (isLocale(chosen)) return chosen;
  return pickUiLocale(uiLocalesOf(request)) ?? pickLocale(request.headers['accept-language']);
}

function uiLocalesOf(request: FastifyRequest): string | undefined {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<string, unknown>;
  for (const value of [query.ui_locales, body.ui_locales]) if (typeof value === 'string') return value;
  const returnTo = [query.return_to, body.return_to].find((value): value is string => typeof value === 'string' && value.startsWith('/'));
  return returnTo === undefined ? undefined : innerQuery(returnTo).get('ui_locales') ?? undefined;
}

/** The query of a local path such as `/oauth/authorize?…` (empty when it does not parse). */
export function innerQuery(path: string): URLSearchParams {
  return URL.canParse(path, 'http://local') ? new URL(path, 'http://local').searchParams : new URLSearchParams();
}
