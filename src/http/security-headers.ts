/**
 * Security headers, computed once at start-up and set by one synchronous hook
 * (`@fastify/helmet` built a new helmet middleware, directive parsing included,
 * on every request). Pages get helmet's full set; JSON routes, which a browser
 * never renders as a document, get the short set of the OWASP REST Security
 * Cheat Sheet ("Security headers"): fewer headers to validate and write on the
 * hottest paths (docs/performance.md). A route opts into the JSON set with
 * {@link markJsonRoutes}; everything else, 404s included, gets the page set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `json`: the short header set of API responses. */
    securityHeaders?: 'json';
  }
}

export interface SecurityHeaders {
  readonly page: Readonly<Record<string, string>>;
  readonly json: Readonly<Record<string, string>>;
}

/** The headers helmet would set with these options (lower-cased names), and the JSON routes' short set. */
export function securityHeaders(options: Readonly<HelmetOptions>, isProduction: boolean): SecurityHeaders {
  const page: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      page[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader() {},
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  const json: Record<string, string> = {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    ...(isProduction && page['strict-transport-security'] ? { 'strict-transport-security': page['strict-transport-security'] } : {}),
  };
  return { page: Object.freeze(page), json: Object.freeze(json) };
}

/** Routes registered from now on in this context answer JSON: they get the short header set. */
export function markJsonRoutes(context: FastifyInstance, except: (url: string) => boolean = () => false): void {
  context.addHook('onRoute', (route) => {
    if (except(route.url)) return;
    route.config = { ...route.config, securityHeaders: 'json' };
  });
}
