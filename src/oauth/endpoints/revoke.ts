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
import { findRefreshToken, revokeGrant } from '../grants/grants.repository.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { verifyAccessToken } from '../tokens/access-token.ts';
import { decryptRefreshToken } from '../tokens/refresh-token.ts';
import { readTokenRequest } from './token-request.ts';
import type { ClientRow } from '../clients/clients.repository.ts';


/** The grant the token belongs to, or `foreign` for a token of ours issued to another client. */
async function grantOfToken(ctx: OAuthContext, client: ClientRow, token: string, now: Date): Promise<number | 'foreign' | undefined> {
  if (token.split('.').length === 5) {
    const payload = decryptRefreshToken(ctx.material, token, now);
    if (!payload) return undefined;
    if (payload.clientId !== client.client_id) return 'foreign';
    const row = await findRefreshToken(ctx.db, payload.rowId);
    return row && row.client_id === client.id ? row.grant_id : undefined;
  }
  try {
    const claims = await verifyAccessToken(ctx.keys, ctx.issuer, token, now);
    return claims.clientId === client.client_id ? claims.grantId : 'foreign';
  } catch {
    return undefined;
  }
}

export function revokeEndpoint(app: FastifyInstance, ctx: OAuthContext, limiter: FailureLimiter): void {
  app.post('/oauth/revoke', async (request, reply) => {
    const { client, token } = await readTokenRequest(ctx, limiter, request, reply);
    const now = ctx.clock();
    const grantId = await grantOfToken(ctx, client, token, now);
    if (grantId === 'foreign') throw new InvalidRequest('The token was not issued to this client.');
    if (grantId !== undefined) await revokeGrant(ctx.db, grantId, now);
    return reply.code(200).send();
  });
}
