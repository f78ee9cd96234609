/**
 * `POST /oauth/device_authorization` (RFC 8628 §3.1, §3.2): the client
 * authenticates as at the token endpoint (same methods, same failure limiter;
 * a public client by its `client_id`), must hold the device_code grant, and
 * asks for scopes checked as at the authorization endpoint. Errors are RFC
 * 6749 §5.2 JSON.
 */
import type { FastifyInstance } from 'fastify';
import { checkRequestedScopes } from '../checks/scope.ts';
import { authenticateClient } from '../clients/client-auth.ts';
import { findClientRow } from '../clients/clients.repository.ts';
import { DEVICE_CODE_GRANT_TYPE } from '../device-authorization/device-code.ts';
import { startDeviceAuthorization } from '../device-authorization/device-authorization.ts';
import { UnauthorizedClient } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { CLIENT_ASSERTION_PARAMETERS, clientAssertionCheck } from './client-assertion-check.ts';
import { formParameters } from './form.ts';
import { Refusals } from './refusals.ts';

export const DEVICE_AUTHORIZATION_PATH = '/oauth/device_authorization';

const PARAMETERS = ['scope', 'client_id', 'client_secret', ...CLIENT_ASSERTION_PARAMETERS] as const;

export function deviceAuthorizationEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post(DEVICE_AUTHORIZATION_PATH, async (request, reply) => {
    const attempt = limiter.begin(request.ip);
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const params = formParameters(request, PARAMETERS);
      const client = await authenticateClient((clientId) => findClientRow(ctx.db, clientId), ctx.material, request.headers.authorization, params,
        clientAssertionCheck(ctx, DEVICE_AUTHORIZATION_PATH));
      await attempt.authenticated(client);
      if (!client.grant_types.includes(DEVICE_CODE_GRANT_TYPE)) {
        throw new UnauthorizedClient('The client is not allowed to use the device authorization grant.');
      }
      const scopes = checkRequestedScopes(params.scope, client.scopes);
      if (!scopes.ok) throw scopes.error;
      const started = await startDeviceAuthorization(ctx, client, scopes.value);
      await attempt.succeeded();
      return reply.send(started);
    } catch (error) {
      new Refusals().log(request, error);
      throw await attempt.failed(error);
    }
  });
}
