/**
 * `GET|POST /oauth/userinfo` (OpenID Connect Core §5.3, RFC 6750; SPEC §5.4):
 * one signature verification with a cached key and one indexed query.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InsufficientScope, InvalidBearerRequest, InvalidToken } from '../errors.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { verifyAccessToken } from '../tokens/access-token.ts';
import { claimsFor, findUserOfLiveGrant } from '../userinfo-claims.ts';
import { isFormRequest } from './form.ts';

/** RFC 6750 §2.1 header, or §2.2 form body; never both. */
function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const fromHeader = header !== undefined && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
  let fromBody: string | undefined;
  if (request.method === 'POST' && isFormRequest(request)) {
    const value = (request.body as Record<string, unknown> | undefined)?.access_token;
    if (value !== undefined && typeof value !== 'string') throw new InvalidBearerRequest('access_token must be given once.');
    fromBody = value;
  }
  if (fromHeader !== undefined && fromBody !== undefined) throw new InvalidBearerRequest('Send the access token in one place only.');
  const token = fromHeader ?? fromBody;
  if (token === undefined || token === '') throw new InvalidToken('An access token is required.');
  return token;
}

export function userinfoEndpoint(app: FastifyInstance, ctx: OAuthContext): void {
  const handler = async (request: FastifyRequest) => {
    const now = ctx.clock();
    const token = await verifyAccessToken(ctx.keys, ctx.issuer, bearerToken(request), now);
    const userId = Number(token.sub);
    const user = Number.isSafeInteger(userId) ? await findUserOfLiveGrant(ctx.db, token.grantId, userId, now) : undefined;
    if (!user) throw new InvalidToken('The access token has been revoked.');
    const scopes = token.scope.split(' ');
    // Defence in depth: a token signed by us still has to agree with the grant it names.
    if (user.grant_client_id !== token.clientId || !scopes.every((scope) => user.grant_scopes.includes(scope))) {
      throw new InvalidToken('The access token does not match its grant.');
    }
    // OpenID Connect Core §5.3: userinfo serves OpenID tokens only (a refresh may have narrowed `openid` away).
    if (!scopes.includes('openid')) throw new InsufficientScope('The access token lacks the openid scope.', 'openid');
    return claimsFor(user, scopes, ctx.issuer);
  };
  app.get('/oauth/userinfo', async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
  app.post('/oauth/userinfo', async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request)));
}
