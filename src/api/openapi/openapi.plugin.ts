/**
 * OpenAPI 3.1 document generated from the route schemas (SPEC-API "General
 * rules"): `GET /api/openapi.json`, browsable at `/api/doc`. The generator is
 * registered on the root before any route so that @fastify/swagger's onRoute
 * hook sees every one; only `/api` operations appear in the document. The UI
 * is registered inside the `/api` context (openapi.routes.ts), so that its
 * missing or refused files answer problem+json like everything under `/api`.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { sessionCookie } from '../../accounts/session-http.ts';
import type { Config } from '../../config.ts';
import { hoistNamedSchemas } from './named-schemas.ts';
import { documentOperation } from './openapi-operation.ts';

export const OPENAPI_PATH = '/api/openapi.json';
export const OPENAPI_UI_PREFIX = '/api/doc';

/** Registers the document generator on the root instance. */
export async function installOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Food-sharing platform REST API',
        version: '1',
        description: 'JSON API under /api. Log in with POST /api/user/login (session cookie); send the CSRF token '
          + '(CSRF_TOKEN cookie or csrfToken field) as X-CSRF-Token on every POST, PUT, PATCH and DELETE. '
          + 'Errors are application/problem+json (RFC 9457) with a stable `code`. A query parameter an operation does not declare '
          + 'is a 400; a body field it does not declare is ignored, unless its body says `x-unknown-fields: refused` (then a 400). '
          + 'HEAD is answered wherever GET is; a method a path has no operation for is a 405 with an Allow header.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: 'the session\'s CSRF token' },
          session: { type: 'apiKey', in: 'cookie', name: sessionCookie(config), description: 'the session cookie set by login' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      const hide = !url.startsWith('/api/') || url.startsWith(`${OPENAPI_UI_PREFIX}/`) || url === OPENAPI_UI_PREFIX;
      return { schema: hide ? { ...schema, hide: true } : documentOperation(schema ?? {}, route), url };
    },
    transformObject: (document) => hoistNamedSchemas('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });
}

/** Swagger UI at `/doc` of the context it is registered in (the `/api` context: {@link OPENAPI_UI_PREFIX}). */
export async function installSwaggerUi(api: FastifyInstance, config: Config): Promise<void> {
  await api.register(swaggerUi, {
    routePrefix: OPENAPI_UI_PREFIX.slice('/api'.length),
    // The page at `/api/doc` (no trailing slash) links its assets absolutely: the
    // plugin only knows its own prefix (`/doc`), not the context's.
    indexPrefix: '/api',
    staticCSP: true,
    // Plain-http development must not be told to upgrade every request (as helmet is configured in app.ts).
    transformStaticCSP: (header) => config.isProduction ? header : header.replace(/\s*upgrade-insecure-requests;?/, ''),
    uiConfig: { deepLinking: true },
  });
}
