/**
 * `POST /oauth/revoke` (RFC 7009), so clients can "revoke on logout". A
 * refresh token or an access token ends its whole grant: every refresh token
 * of the family and every access token of the grant (RFC 7009 §2.1 allows
 * revoking related tokens). Unknown, invalid or expired tokens answer 200
 * (§2.2): the client cannot act on such an error. A token of ours issued to
 * another client is refused (§2.1: the server "verifies whether the token was
 * issued to the client making the revocation request. If this validation
 * fails, the request is refused") and keeps working.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidRequest } from '../errors.ts';
import type { FailureLimiter } from '../failure-limiter.ts';
import { revokeGrant } from '../grants/grants.repository.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { findGrantOfToken } from '../tokens/token-grant.ts';
import { readTokenRequest } from './token-request.ts';

export function revokeEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post('/oauth/revoke', async (request, reply) => {
    const { client, token } = await readTokenRequest(ctx, limiter, request, reply);
    const now = ctx.clock();
    const found = await findGrantOfToken(ctx, token, now);
    if (found && found.clientId !== client.client_id) throw new InvalidRequest('The token was not issued to this client.');
    if (found && (found.clientRowId ?? client.id) === client.id) await revokeGrant(ctx.db, found.grantId, now);
    return reply.code(200).send();
  });
}
