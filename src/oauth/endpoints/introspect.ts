/**
 * `POST /oauth/introspect` (RFC 7662) for authenticated confidential clients,
 * answering JSON, or a signed JWT (RFC 9701) when the client accepts
 * `application/token-introspection+jwt`. Public clients are refused: they
 * cannot authenticate, and §2.1 requires the caller to.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClientRow } from '../clients/clients.repository.ts';
import { InvalidClient } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import { encodeSegment } from '../jose/jws.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { introspectToken, type Introspection } from '../tokens/introspection.ts';
import { readTokenRequest } from './token-request.ts';

export const INTROSPECTION_JWT_TYPE = 'token-introspection+jwt';
const JWT_MEDIA_TYPE = `application/${INTROSPECTION_JWT_TYPE}`;

export function introspectionEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post('/oauth/introspect', async (request, reply) => {
    const { client, token } = await readTokenRequest(ctx, limiter, request, reply, (caller) => {
      if (caller.confidential) return;
      throw new InvalidClient('Token introspection is for confidential clients.', request.headers.authorization !== undefined, caller.client_id)
        .withDetail('public client asked for introspection');
    });
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

/**
 * RFC 9701 §5: `iss`, `aud` (the caller), `iat` and the answer as `token_introspection`, typed and signed
 * with our RS256 key: RS256 is RFC 9701 §6's default `introspection_signed_response_alg`, the one value
 * discovery lists (no client chooses another here).
 */
async function sendJwt(reply: FastifyReply, ctx: OAuthContext, client: ClientRow, answer: Introspection, now: Date): Promise<FastifyReply> {
  const signer = await ctx.keys.signer('RS256');
  const header = encodeSegment({ alg: signer.alg, typ: INTROSPECTION_JWT_TYPE, kid: signer.kid });
  const jwt = await signer.sign(header, {
    iss: ctx.issuer, aud: client.client_id, iat: Math.floor(now.getTime() / 1000), token_introspection: answer,
  });
  return reply.type(JWT_MEDIA_TYPE).send(jwt);
}
