/**
 * `POST /oauth/token` (RFC 6749 §3.2, §4.1.3, §6; SPEC §5.3). Responses carry
 * `Cache-Control: no-store`; errors are RFC 6749 §5.2 JSON (see oauth.routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { authenticateClient } from '../clients/client-auth.ts';
import { UnsupportedGrantType, InvalidRequest } from '../errors.ts';
import { exchangeAuthorizationCode } from '../grants/authorization-code.ts';
import { exchangeRefreshToken } from '../grants/refresh-token.ts';
import type { OAuthContext } from '../oauth-context.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import { formParameters } from './form.ts';

const TOKEN_PARAMETERS = [
  'grant_type', 'client_id', 'client_secret', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope',
] as const;

export function tokenEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post('/oauth/token', async (request, reply) => {
    const attempt = limiter.begin(request.ip);
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const params = formParameters(request, TOKEN_PARAMETERS);
      if (params.grant_type === undefined) throw new InvalidRequest('grant_type is required.');
      if (params.grant_type !== 'authorization_code' && params.grant_type !== 'refresh_token') {
        throw new UnsupportedGrantType('Supported grant types: authorization_code, refresh_token.');
      }
      const body = await ctx.clients.run(async (find) => {
        const client = await authenticateClient(find, ctx.material, request.headers.authorization, params);
        attempt.authenticated(client);
        return params.grant_type === 'authorization_code'
          ? exchangeAuthorizationCode(ctx, client, params)
          : exchangeRefreshToken(ctx, client, params);
      });
      return reply.send(body);
    } catch (error) {
      throw attempt.failed(error);
    }
  });
}
