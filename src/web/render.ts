/**
 * Server-rendered pages (Eta, auto-escaping). `reply.render(view, data)` adds
 * what every page needs: the locale and its translator, the logged-in user and
 * the site's base URL. The strings are the ones app.ts passes in.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isOrga } from '../accounts/roles.ts';
import { translator, type Messages, type Translate } from './i18n.ts';
import { localeOf } from './language/locale.ts';

const VIEWS_DIR = fileURLToPath(new URL('./views/', import.meta.url));
/** The static assets, read once: the stylesheet and the scripts (files, since the pages' CSP refuses inline ones). */
const STATIC_ASSETS = Object.entries({ 'style.css': 'text/css', 'copy-secret.js': 'text/javascript' })
  .map(([name, type]) => ({ name, type: `${type}; charset=utf-8`, body: readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8') }));

declare module 'fastify' {
  interface FastifyReply {
    render(view: string, data?: Record<string, unknown>, status?: number): Promise<FastifyReply>;
    /** The strings in the language of this request. */
    translator(): Translate;
  }
}

export function installPages(app: FastifyInstance, messages: Messages): void {
  const eta = new Eta({ views: VIEWS_DIR, autoEscape: true, cache: true, useWith: false });

  app.decorateReply('translator', function translatorOfReply(this: FastifyReply) {
    return translator(messages, localeOf(this.request));
  });

  app.decorateReply('render', async function render(this: FastifyReply, view: string, data = {}, status = 200) {
    const request = this.request;
    const locale = localeOf(request);
    const session = await request.getSession().catch(() => null);
    const html = eta.render(`./${view}`, {
      ...data,
      lang: locale,
      t: translator(messages, locale),
      user: session?.user ?? null,
      isOrga: session ? isOrga(session.user) : false,
      // Where the language switch comes back to.
      here: request.url,
    });
    return this.code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('vary', 'Accept-Language, Cookie')
      .send(html);
  });

  for (const asset of STATIC_ASSETS) {
    app.get(`/static/${asset.name}`, (_request, reply) => reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=3600')
      .send(asset.body));
  }
}
