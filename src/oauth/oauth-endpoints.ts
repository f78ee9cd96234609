/**
 * The OAuth JSON endpoints in their own Fastify context: token, pushed
 * authorization requests (RFC 9126), device authorization (RFC 8628), userinfo,
 * revocation, introspection, discovery and JWKS, with RFC 6749 §5.2 / RFC 6750 §3.1 error
 * bodies (never problem+json, never an HTML page) and CORS.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { classifyFailure, logFailure } from '../http/failures.ts';
import { markJsonRoutes } from '../http/security-headers.ts';
import { CLIENT_ENDPOINTS, installOAuthCors } from './cors.ts';
import { DEVICE_AUTHORIZATION_PATH, deviceAuthorizationEndpoint } from './endpoints/device-authorization.ts';
import { discoveryEndpoints } from './endpoints/discovery.ts';
import { introspectionEndpoint } from './endpoints/introspect.ts';
import { PAR_PATH, pushedAuthorizationRequestEndpoint } from './endpoints/par.ts';
import { revokeEndpoint } from './endpoints/revoke.ts';
import { tokenEndpoint } from './endpoints/token.ts';
import { userinfoEndpoint } from './endpoints/userinfo.ts';
import { InvalidRequest, MethodNotAllowed, OAuthError, PayloadTooLarge, ServerError, TemporarilyUnavailable } from './errors.ts';
import { FailureLimiter } from './failure-limiter.ts';
import type { OAuthContext } from './oauth-context.ts';

export async function oauthEndpoints(app: FastifyInstance, options: { ctx: OAuthContext }): Promise<void> {
  const { ctx } = options;
  markJsonRoutes(app);
  installOAuthCors(app, ctx.db);
  const limiter = new FailureLimiter(ctx.db, ctx.clock);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let oauthError: OAuthError;
    if (error instanceof OAuthError) oauthError = error;
    else {
      const failure = classifyFailure(error);
      logFailure(request.log, error, failure);
      oauthError = failure.status === 503 ? new TemporarilyUnavailable(failure.message)
        : failure.status >= 500 ? new ServerError(failure.message)
        // Only RFC 9126 names 413 for an OAuth endpoint; the others answer RFC 6749 §5.2's 400.
        : failure.status === 413 && request.routeOptions.url === PAR_PATH ? new PayloadTooLarge(failure.message)
        : new InvalidRequest(failure.message);
    }
    return reply.code(oauthError.status).headers(oauthError.headers)
      .header('cache-control', 'no-store').send(oauthError.toJSON());
  });

  for (const url of ['/oauth/token', '/oauth/revoke', '/oauth/introspect', PAR_PATH, DEVICE_AUTHORIZATION_PATH]) {
    const preflight = CLIENT_ENDPOINTS.includes(url);
    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE'], url, handler: async () => { throw new MethodNotAllowed(['POST'], preflight); } });
  }
  tokenEndpoint(app, ctx, limiter);
  pushedAuthorizationRequestEndpoint(app, ctx, limiter);
  deviceAuthorizationEndpoint(app, ctx, limiter);
  userinfoEndpoint(app, ctx);
  revokeEndpoint(app, ctx, limiter);
  introspectionEndpoint(app, ctx, limiter);
  discoveryEndpoints(app, ctx);
}
