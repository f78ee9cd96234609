/**
 * `GET /language/de|en?return_to=/path`: the language switch in the page
 * frame. Remembers the choice for a year (a preference, not a secret: no
 * CSRF token; the worst a forged link does is switch the language) and goes
 * back to the page it was chosen on.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import { toLocation } from '../../http/location.ts';
import { LANGUAGE_COOKIE } from './locale.ts';

const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** A path on this site; never `//host` or `/\host`, which browsers read as another origin. */
function localPath(candidate: string | undefined): string {
  if (candidate === undefined || !candidate.startsWith('/') || candidate.startsWith('//') || candidate.startsWith('/\\')) return '/';
  return /[\u0000-\u001f\u007f]/.test(candidate) ? '/' : candidate;
}

export const languagePage: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  app.get('/language/:locale', {
    schema: {
      params: Type.Object({ locale: Type.Union([Type.Literal('de'), Type.Literal('en')]) }),
      querystring: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 8192 })) }),
    },
  }, async (request, reply) => {
    void reply.setCookie(LANGUAGE_COOKIE, request.params.locale, {
      path: '/', maxAge: ONE_YEAR_SECONDS, httpOnly: true, sameSite: 'lax', secure: config.isProduction,
    });
    return reply.header('cache-control', 'no-store').redirect(toLocation(localPath(request.query.return_to)), 303);
  });
};
