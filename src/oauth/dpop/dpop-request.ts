/**
 * The `DPoP` header of a request to one of our endpoints (RFC 9449 §4.1),
 * checked for that endpoint; used proofs are recorded in the database, so a
 * replay is refused on every instance. When the client should move on to a
 * newer nonce, the reply carries it (`DPoP-Nonce`, §8.2).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logSecurityEvent } from '../../ops/security-events.ts';
import { InvalidDpopProof } from '../errors.ts';
import type { OAuthContext } from '../oauth-context.ts';
import { recordDpopJti } from './dpop-proofs.repository.ts';
import { ReplayedDpopProof, verifyDpopProof, type VerifiedProof } from './dpop-proof.ts';

/** The proof's key thumbprint, or undefined when the request carries no `DPoP` header. `accessToken`: at a protected resource. */
export async function readDpopProof(
  ctx: OAuthContext, request: FastifyRequest, reply: FastifyReply, path: string, accessToken?: string,
): Promise<VerifiedProof | undefined> {
  const value = request.headers.dpop;
  if (value === undefined) return undefined;
  // §4.3 item 1: exactly one header (Node.js joins repeated ones with ", ").
  if (Array.isArray(value) || value.includes(',')) throw new InvalidDpopProof('Send exactly one DPoP header.');
  const now = ctx.clock();
  const proof = await verifyDpopProof(value.trim(), {
    method: request.method, uri: `${ctx.issuer}${path}`, accessToken, now, nonces: ctx.dpop.nonces, requireNonce: ctx.dpop.requireNonce,
    recordJti: (digest, expiresAt) => recordDpopJti(ctx.db, digest, expiresAt),
  }).catch((error: unknown) => {
    if (error instanceof ReplayedDpopProof) logSecurityEvent(request.events, { event: 'oauth.dpop.proof_replayed', endpoint: path, jkt: error.jkt, ip: request.ip });
    throw error;
  });
  if (proof.staleNonce) void reply.header('dpop-nonce', ctx.dpop.nonces.current(now));
  return proof;
}
