/**
 * `GET|POST /oauth/userinfo` (OpenID Connect Core §5.3, RFC 6750; SPEC §5.4):
 * one signature verification with a cached key and one indexed query. A
 * DPoP-bound access token (RFC 9449 §7) is accepted only as
 * `Authorization: DPoP` with a proof of its key naming it (`ath`); as a bearer
 * token it is refused with the DPoP challenge.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readDpopProof } from '../dpop/dpop-request.ts';
import { DPOP_SIGNING_ALGS } from '../dpop/dpop-proof.ts';
import { DpopChallenge, InsufficientScope, InvalidBearerRequest, InvalidToken, MethodNotAllowed, MissingToken, OAuthError } from '../errors.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { verifyAccessToken, type VerifiedAccessToken } from '../tokens/access-token.ts';
import { claimsFor, findUserOfLiveGrant } from '../userinfo-claims.ts';
import { isFormRequest } from './form.ts';

const USERINFO_PATH = '/oauth/userinfo';

interface PresentedToken {
  token: string;
  /** RFC 9449 §7.1: `Authorization: DPoP`; otherwise a bearer token (RFC 6750 §2.1, §2.2). */
  scheme: 'bearer' | 'dpop';
}

/** RFC 6750 §2.1 or RFC 9449 §7.1 header, or RFC 6750 §2.2 form body; never both. */
function presentedToken(request: FastifyRequest): PresentedToken {
  const header = request.headers.authorization;
  const scheme = header === undefined ? undefined : /^bearer /i.test(header) ? 'bearer' : /^dpop /i.test(header) ? 'dpop' : undefined;
  const fromHeader = scheme === undefined ? undefined : header!.slice(scheme.length + 1).trim();
  let fromBody: string | undefined;
  if (request.method === 'POST' && isFormRequest(request)) {
    const value = (request.body as Record<string, unknown> | undefined)?.access_token;
    if (value !== undefined && typeof value !== 'string') throw new InvalidBearerRequest('access_token must be given once.');
    fromBody = value;
  }
  if (fromHeader !== undefined && fromBody !== undefined) throw new InvalidBearerRequest('Send the access token in one place only.');
  const token = fromHeader ?? fromBody;
  if (token === undefined || token === '') throw new MissingToken('An access token is required.');
  return { token, scheme: scheme === 'dpop' && fromHeader !== undefined ? 'dpop' : 'bearer' };
}

/** A refusal of a DPoP request or of a DPoP-bound token, as the DPoP challenge (RFC 9449 §7.1, §9). */
function dpopChallenge(error: unknown): unknown {
  if (!(error instanceof OAuthError) || error.status >= 500) return error;
  const { 'www-authenticate': _bearer, ...headers } = error.headers;
  return new DpopChallenge(error.error, error.description, DPOP_SIGNING_ALGS, headers, error.status === 403 ? 403 : 401);
}

export function userinfoEndpoint(app: FastifyInstance, ctx: OAuthContext): void {
  /** The verified token, its proof checked when it is bound or presented as DPoP. */
  const verifiedToken = async (request: FastifyRequest, reply: FastifyReply, now: Date): Promise<VerifiedAccessToken> => {
    const { token, scheme } = presentedToken(request);
    if (scheme === 'bearer') {
      const verified = await verifyAccessToken(ctx.keys, ctx.issuer, token, now);
      // RFC 9449 §7.2: a bound token is no bearer token.
      if (verified.jkt !== undefined) throw dpopChallenge(new InvalidToken('The access token is DPoP-bound: present it with Authorization: DPoP and a DPoP proof.'));
      return verified;
    }
    try {
      const proof = await readDpopProof(ctx, request, reply, USERINFO_PATH, token);
      if (!proof) throw new InvalidToken('A DPoP proof is required with Authorization: DPoP.');
      const verified = await verifyAccessToken(ctx.keys, ctx.issuer, token, now);
      if (verified.jkt === undefined) throw new InvalidToken('The access token is not DPoP-bound: present it as a Bearer token.');
      if (verified.jkt !== proof.jkt) throw new InvalidToken('The DPoP proof is signed by another key than the one the access token is bound to.');
      return verified;
    } catch (error) {
      throw dpopChallenge(error);
    }
  };

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const now = ctx.clock();
    const token = await verifiedToken(request, reply, now);
    const refuse = (error: OAuthError) => (token.jkt === undefined ? error : dpopChallenge(error));
    const userId = Number(token.sub);
    const scopes = token.scope.split(' ');
    const user = Number.isSafeInteger(userId) ? await findUserOfLiveGrant(ctx.db, token.grantId, userId, now, scopes.includes('regions')) : undefined;
    if (!user) throw refuse(new InvalidToken('The access token has been revoked.'));
    // Defence in depth: a token signed by us still has to agree with the grant it names.
    if (user.grant_client_id !== token.clientId || !scopes.every((scope) => user.grant_scopes.includes(scope))) {
      throw refuse(new InvalidToken('The access token does not match its grant.'));
    }
    // OpenID Connect Core §5.3: userinfo serves OpenID tokens only (a refresh may have narrowed `openid` away).
    if (!scopes.includes('openid')) throw refuse(new InsufficientScope('The access token lacks the openid scope.', 'openid'));
    return claimsFor(user, scopes, ctx.issuer);
  };
  app.get(USERINFO_PATH, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request, reply)));
  app.post(USERINFO_PATH, async (request, reply) => reply.header('cache-control', 'no-store').send(await handler(request, reply)));
  app.route({ method: ['PUT', 'PATCH', 'DELETE'], url: USERINFO_PATH, handler: async () => { throw new MethodNotAllowed(['GET', 'POST']); } });
}
