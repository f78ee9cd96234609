/**
 * CORS for browser clients (SPEC §5.6): discovery and JWKS are public
 * documents (`*`); token, userinfo, revocation and pushed authorization
 * requests (RFC 9126, which public clients may make) answer the web origins of
 * registered redirect URIs. Headers are set before the handler runs, so error
 * responses carry them too; preflights answer 204.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DB } from '../db/database.ts';
import { isRegisteredOrigin } from './clients/clients.repository.ts';

export const PUBLIC_DOCUMENTS = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json'];
export const CLIENT_ENDPOINTS = ['/oauth/token', '/oauth/userinfo', '/oauth/revoke', '/oauth/par'];

const MAX_AGE_SECONDS = '600';

/** The request's Origin when it is a registered client's web origin (an Origin header is sent by browsers only). */
async function registeredOrigin(db: DB, request: FastifyRequest): Promise<string | undefined> {
  const origin = request.headers.origin;
  if (origin === undefined || origin.length > 300) return undefined;
  return await isRegisteredOrigin(db, origin) ? origin : undefined;
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function setCorsHeaders(reply: FastifyReply, origin: string): void {
  void reply.header('access-control-allow-origin', origin);
  if (origin !== '*') void reply.header('vary', 'Origin');
  void reply.header('access-control-expose-headers', 'WWW-Authenticate, Retry-After, DPoP-Nonce');
}

/**
 * The CORS hook goes on the routes that need it, each with the rule of its
 * path: the public documents' is synchronous (always `*`), the client
 * endpoints' looks the origin up only when a browser sent one.
 */
export function installOAuthCors(app: FastifyInstance, db: DB): void {
  const publicDocument = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    setCorsHeaders(reply, '*');
    done();
  };
  const clientEndpoint = async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = await registeredOrigin(db, request);
    if (origin !== undefined) setCorsHeaders(reply, origin);
  };
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS') return;
    const hook = PUBLIC_DOCUMENTS.includes(route.url) ? publicDocument : CLIENT_ENDPOINTS.includes(route.url) ? clientEndpoint : undefined;
    if (hook) route.onRequest = [...toArray(route.onRequest), hook as never];
  });

  for (const path of [...PUBLIC_DOCUMENTS, ...CLIENT_ENDPOINTS]) {
    app.options(path, async (request, reply) => {
      // Public documents: always `*`, with or without Origin: they are publicly cacheable,
      // and a cached copy fetched without Origin must still serve a browser.
      const origin = PUBLIC_DOCUMENTS.includes(path) ? '*' : await registeredOrigin(db, request);
      if (origin !== undefined) {
        setCorsHeaders(reply, origin);
        void reply.header('access-control-allow-methods', PUBLIC_DOCUMENTS.includes(path) ? 'GET' : path === '/oauth/userinfo' ? 'GET, POST' : 'POST')
          .header('access-control-allow-headers', 'Authorization, Content-Type, DPoP')
          .header('access-control-max-age', MAX_AGE_SECONDS);
      }
      return reply.code(204).send();
    });
  }
}
