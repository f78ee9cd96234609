/**
 * `POST /oauth/introspect` (RFC 7662) for authenticated confidential clients,
 * answering JSON, or a signed JWT (RFC 9701) when the client accepts
 * `application/token-introspection+jwt`. Public clients are refused: they
 * cannot authenticate, and §2.1 requires the caller to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateClient } from '../clients/client-auth.ts';
import { findClientRow, type ClientRow } from '../clients/clients.repository.ts';
import { InvalidClient, InvalidRequest } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import { encodeSegment } from '../jose/jws.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { introspectToken, type Introspection } from '../tokens/introspection.ts';
import { formParameters } from './form.ts';
import { Refusals } from './refusals.ts';

const INTROSPECT_PARAMETERS = ['token', 'token_type_hint', 'client_id', 'client_secret'] as const;
export const INTROSPECTION_JWT_TYPE = 'token-introspection+jwt';
const JWT_MEDIA_TYPE = `application/${INTROSPECTION_JWT_TYPE}`;

export function introspectionEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post('/oauth/introspect', async (request, reply) => {
    const attempt = limiter.begin(request.ip);
    void reply.header('cache-control', 'no-store');
    let client: ClientRow;
    let token: string | undefined;
    try {
      const params = formParameters(request, INTROSPECT_PARAMETERS);
      client = await authenticateClient((clientId) => findClientRow(ctx.db, clientId), ctx.material, request.headers.authorization, params);
      if (!client.confidential) {
        throw new InvalidClient('Token introspection is for confidential clients.', request.headers.authorization !== undefined, client.client_id)
          .withDetail('public client asked for introspection');
      }
      attempt.authenticated(client);
      token = params.token;
      if (token === undefined || token === '') throw new InvalidRequest('token is required.');
    } catch (error) {
      new Refusals().log(request, error);
      throw attempt.failed(error);
    }
    const now = ctx.clock();
    const answer = await introspectToken(ctx, client, token, now);
    if (acceptsJwt(request)) return sendJwt(reply, ctx, client, answer, now);
    return reply.send(answer);
  });
}

/** RFC 9701 §4: the client asks for the signed form through `Accept`. */
function acceptsJwt(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.split(',').some((range) => range.split(';')[0]!.trim().toLowerCase() === JWT_MEDIA_TYPE);
}

/** RFC 9701 §5: `iss`, `aud` (the caller), `iat` and the answer as `token_introspection`, typed and signed with our key. */
async function sendJwt(reply: FastifyReply, ctx: OAuthContext, client: ClientRow, answer: Introspection, now: Date): Promise<FastifyReply> {
  const signer = await ctx.keys.signer();
  const header = encodeSegment({ alg: 'RS256', typ: INTROSPECTION_JWT_TYPE, kid: signer.kid });
  const jwt = await signer.sign(header, {
    iss: ctx.issuer, aud: client.client_id, iat: Math.floor(now.getTime() / 1000), token_introspection: answer,
  });
  return reply.type(JWT_MEDIA_TYPE).send(jwt);
}
