/**
 * `POST /oauth/token` (RFC 6749 §3.2, §4.1.3, §6; SPEC §5.3): authenticates
 * the client and dispatches to the grant named by `grant_type`, passing it only
 * the parameters it declares. Responses carry `Cache-Control: no-store`;
 * errors are RFC 6749 §5.2 JSON (see oauth-endpoints.ts).
 */
import type { FastifyInstance } from 'fastify';
import { authenticateClient } from '../clients/client-auth.ts';
import { readDpopProof } from '../dpop/dpop-request.ts';
import { UnsupportedGrantType, InvalidRequest } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import { deviceCodeStore } from '../device-authorization/device-code-store.ts';
import { authorizationCodeStore } from '../grants/codes.repository.ts';
import { refreshTokenStore } from '../grants/grants.repository.ts';
import { GRANT_PARAMETERS, GRANTS, type GrantContext } from '../grants/index.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { issueTokens } from '../tokens/token-response.ts';
import { CLIENT_ASSERTION_PARAMETERS, clientAssertionCheck } from './client-assertion-check.ts';
import { formParameters } from './form.ts';
import { Refusals } from './refusals.ts';

const CLIENT_PARAMETERS = ['client_id', 'client_secret', ...CLIENT_ASSERTION_PARAMETERS] as const;
const TOKEN_PARAMETERS = ['grant_type', ...CLIENT_PARAMETERS, ...GRANT_PARAMETERS];

export function tokenEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  const grantContext: GrantContext = {
    clock: ctx.clock,
    material: ctx.material,
    refreshGraceSeconds: ctx.refreshGraceSeconds,
    codes: authorizationCodeStore(ctx.db),
    refreshTokens: refreshTokenStore(ctx.db),
    deviceCodes: deviceCodeStore(ctx.db),
    issue: (input) => issueTokens(ctx, input),
  };
  app.post('/oauth/token', async (request, reply) => {
    const attempt = limiter.begin(request.ip);
    const refusals = new Refusals();
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const params = formParameters(request, TOKEN_PARAMETERS);
      if (params.grant_type === undefined) throw new InvalidRequest('grant_type is required.');
      const grant = GRANTS.get(params.grant_type);
      if (!grant) throw new UnsupportedGrantType(`Supported grant types: ${[...GRANTS.keys()].join(', ')}.`);
      const grantParams = Object.fromEntries(grant.parameters.map((name) => [name, params[name]]));
      const checkAssertion = clientAssertionCheck(ctx, '/oauth/token');
      // RFC 9449 §5: checked (and its jti spent) once, before the client cache may run the rest twice.
      const dpopJkt = (await readDpopProof(ctx, request, reply, '/oauth/token'))?.jkt;
      const body = await ctx.clients.run(async (find) => {
        const client = await authenticateClient(find, ctx.material, request.headers.authorization, params, checkAssertion);
        await attempt.authenticated(client);
        // RFC 9449 §5.2: such a client's token requests must carry a proof.
        if (client.dpop_bound_access_tokens && dpopJkt === undefined) throw new InvalidRequest('A DPoP proof is required for this client.');
        return grant.handle(grantContext, client, grantParams, { dpopJkt }).catch(refusals.note);
      });
      await attempt.succeeded();
      return reply.send(body);
    } catch (error) {
      refusals.log(request, error);
      throw await attempt.failed(error);
    }
  });
}
