/**
 * Server-rendered pages (Eta, auto-escaping). `reply.render(view, data)` adds
 * what every page needs: the locale and its translator, the logged-in user and
 * the site's base URL. The strings are the ones app.ts passes in.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Eta } from 'eta';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isOrga } from '../accounts/roles.ts';
import { translator, type Messages, type Translate } from './i18n.ts';
import { localeOf } from './language/locale.ts';

const VIEWS_DIR = fileURLToPath(new URL('./views/', import.meta.url));
/**
 * The static assets, read once: the stylesheet, the scripts (files, since the pages' CSP refuses inline
 * ones) and the pages' icon (linked by the layout, so that browsers do not ask for a missing /favicon.ico).
 */
const STATIC_ASSETS = Object.entries({ 'style.css': 'text/css', 'copy-secret.js': 'text/javascript', 'show-password.js': 'text/javascript', 'favicon.svg': 'image/svg+xml' })
  .map(([name, type]) => ({ name, type: `${type}; charset=utf-8`, body: readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8') }));

/**
 * The pages' scripts, each read once at start: @simplewebauthn/browser's
 * bundle as its package ships it (node_modules, never a copy of ours), then
 * what our scripts share, then the script's own code: a page includes one file.
 * Same-origin files only: the Content-Security-Policy (`script-src 'self'`,
 * `script-src-attr 'none'`) allows no inline script.
 */
const WEBAUTHN_LIBRARY = readFileSync(new URL('../dist/bundle/index.umd.min.js', pathToFileURL(createRequire(import.meta.url).resolve('@simplewebauthn/browser'))), 'utf8');
const staticText = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), 'utf8');
const PASSKEY_COMMON = staticText('passkey-common.js');
const SCRIPTS: Readonly<Record<string, string>> = Object.fromEntries(['passkey-login.js', 'passkey-settings.js'].map((name) => [
  `/static/${name}`, `${WEBAUTHN_LIBRARY}\n${PASSKEY_COMMON}\n${staticText(name)}`,
]));

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
      here: request.method === 'GET' || request.method === 'HEAD' ? request.url : pageOfSubmission(app, request),
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

  for (const [path, source] of Object.entries(SCRIPTS)) {
    app.get(path, (_request, reply) => reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(source));
  }
}

/**
 * The page a form's answer belongs to, for its language switch: a GET of a POST's own address, or of the
 * nearest address above it that has one (`/settings/security` for `/settings/security/password`), its
 * parameters filled in. A POST's address itself may have no page: the switch would end in a 404. The
 * form's own page gets the form's `return_to` back (the app's request a failed login was for), which
 * that page checks as it checks any.
 */
function pageOfSubmission(app: FastifyInstance, request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const own = request.routeOptions.url ?? '/';
  let pattern = own;
  while (pattern.length > 1 && !app.hasRoute({ method: 'GET', url: pattern })) pattern = pattern.slice(0, pattern.lastIndexOf('/')) || '/';
  const path = pattern.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(params[name] ?? '')));
  const returnTo = (request.body as { return_to?: unknown } | undefined)?.return_to;
  const keeps = pattern === own && typeof returnTo === 'string' && returnTo.startsWith('/') && !returnTo.startsWith('//') && returnTo !== '/';
  return keeps ? `${path}?${new URLSearchParams({ return_to: returnTo })}` : path;
}
