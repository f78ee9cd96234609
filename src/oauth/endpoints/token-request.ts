/**
 * The common first half of the endpoints that take a token from an
 * authenticated client (revocation, RFC 7009 §2.1; introspection, RFC 7662
 * §2.1): form parameters, client authentication, the failure limiter and the
 * `token` parameter. A refusal is logged as a security event and counted.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateClient } from '../clients/client-auth.ts';
import { findClientRow, type ClientRow } from '../clients/clients.repository.ts';
import { InvalidRequest } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { CLIENT_ASSERTION_PARAMETERS, clientAssertionCheck } from './client-assertion-check.ts';
import { formParameters } from './form.ts';
import { Refusals } from './refusals.ts';

const PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret', ...CLIENT_ASSERTION_PARAMETERS] as const;

export interface TokenRequest {
  readonly client: ClientRow;
  readonly token: string;
}

/** `acceptClient` may refuse an authenticated client (by throwing an OAuthError) before it counts as authenticated. */
export async function readTokenRequest(
  ctx: OAuthContext, limiter: FailureLimiter, request: FastifyRequest, reply: FastifyReply,
  acceptClient: (client: ClientRow) => void = () => {},
): Promise<TokenRequest> {
  const attempt = limiter.begin(request.ip);
  void reply.header('cache-control', 'no-store');
  try {
    const params = formParameters(request, PARAMETERS);
    const client = await authenticateClient((clientId) => findClientRow(ctx.db, clientId), ctx.material, request.headers.authorization, params, clientAssertionCheck(ctx, request.routeOptions.url ?? request.url));
    acceptClient(client);
    await attempt.authenticated(client);
    const token = params.token;
    if (token === undefined || token === '') throw new InvalidRequest('token is required.');
    await attempt.succeeded();
    return { client, token };
  } catch (error) {
    new Refusals().log(request, error);
    throw await attempt.failed(error);
  }
}
