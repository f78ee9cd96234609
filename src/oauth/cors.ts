/**
 * CORS for browser clients (SPEC §5.6): discovery and JWKS are public
 * documents (`*`); token, userinfo and revocation answer the web origins of
 * registered redirect URIs. Headers are set before the handler runs, so error
 * responses carry them too; preflights answer 204.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DB } from '../db/database.ts';
import { isRegisteredOrigin } from './clients/clients.repository.ts';

export const PUBLIC_DOCUMENTS = ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json'];
export const CLIENT_ENDPOINTS = ['/oauth/token', '/oauth/userinfo', '/oauth/revoke'];

const MAX_AGE_SECONDS = '600';

async function allowedOrigin(db: DB, request: FastifyRequest): Promise<string | undefined> {
  const path = request.url.split('?')[0] ?? '';
  // Always `*`, with or without Origin: these responses are publicly cacheable,
  // and a cached copy fetched without Origin must still serve a browser.
  if (PUBLIC_DOCUMENTS.includes(path)) return '*';
  const origin = request.headers.origin;
  if (origin === undefined || origin.length > 300) return undefined;
  if (CLIENT_ENDPOINTS.includes(path) && await isRegisteredOrigin(db, origin)) return origin;
  return undefined;
}

function setCorsHeaders(reply: FastifyReply, origin: string): void {
  void reply.header('access-control-allow-origin', origin);
  if (origin !== '*') void reply.header('vary', 'Origin');
  void reply.header('access-control-expose-headers', 'WWW-Authenticate, Retry-After');
}

export function installOAuthCors(app: FastifyInstance, db: DB): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const origin = await allowedOrigin(db, request);
    if (origin !== undefined) setCorsHeaders(reply, origin);
  });

  for (const path of [...PUBLIC_DOCUMENTS, ...CLIENT_ENDPOINTS]) {
    app.options(path, async (request, reply) => {
      const origin = await allowedOrigin(db, request);
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
