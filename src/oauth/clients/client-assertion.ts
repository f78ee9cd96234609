/**
 * Checking a client assertion (RFC 7523 §3, OpenID Connect Core 1.0 §9
 * private_key_jwt): a JWT signed with one of the client's registered keys
 * (asymmetric algorithms only: no `none`, no HMAC — RFC 8725 §3.1), `iss` and
 * `sub` the client id, `aud` the issuer, the token endpoint's URL or the
 * endpoint's URL (and no other audience), a short `exp` and a `jti` used
 * once until it expires (recorded for every instance).
 */
import { createHash } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyResult } from 'jose';
import type { Executor } from '../../db/executor.ts';
import { ASSERTION_SIGNING_ALGS } from './auth-methods.ts';
import { recordAssertionJti } from './client-assertions.repository.ts';
import type { ClientJwks } from './client-jwks.ts';
import type { ClientRow } from './clients.repository.ts';

export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How far ahead `exp` may be: an assertion is made for one request. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
const CLOCK_TOLERANCE_SECONDS = 30;

/** Why an assertion was refused, for the security log (the client hears only invalid_client). */
export class AssertionRefused extends Error {
  override readonly name = 'AssertionRefused';
}

export interface AssertionContext {
  db: Executor;
  jwks: ClientJwks;
  /** The audiences accepted: the issuer (first), the token endpoint's URL and this endpoint's URL. */
  audiences: readonly string[];
  now: Date;
  /** jti digests this request recorded itself: a repeat inside one request (the client cache's retry) is no replay. */
  recorded: Set<string>;
}

/** Resolves when the assertion authenticates `client`; throws {@link AssertionRefused} otherwise. */
export async function verifyClientAssertion(ctx: AssertionContext, client: ClientRow, assertion: string): Promise<void> {
  const { payload, protectedHeader } = await verifySignature(ctx, client, assertion);
  checkTypeAndAudience(ctx, protectedHeader.typ, payload.aud);
  const now = Math.floor(ctx.now.getTime() / 1000);
  const exp = payload.exp!;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) throw new AssertionRefused(`exp more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds ahead`);
  if (payload.iat !== undefined && payload.iat > now + CLOCK_TOLERANCE_SECONDS) throw new AssertionRefused('iat in the future');
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 500) throw new AssertionRefused('no usable jti');
  const digest = createHash('sha256').update(`${client.client_id}\0${payload.jti}`).digest();
  const key = digest.toString('hex');
  if (ctx.recorded.has(key)) return;
  if (!(await recordAssertionJti(ctx.db, digest, new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000)))) throw new AssertionRefused('jti already used');
  ctx.recorded.add(key);
}

/**
 * RFC 8725 §3.11, draft-ietf-oauth-rfc7523bis: a JWT typed as anything but a
 * client assertion (a DPoP proof, an access token) is none; one typed
 * `client-authentication+jwt` names the issuer as its only audience. An `aud`
 * list naming any audience besides this server's is refused: an assertion
 * made for several parties could be replayed by any of them (the audience
 * injection the draft answers). An untyped assertion may still name the token
 * endpoint's URL or the endpoint's own, as RFC 7523 and OpenID Connect Core §9
 * let clients do.
 */
function checkTypeAndAudience(ctx: AssertionContext, typ: string | undefined, aud: JWTPayload['aud']): void {
  const type = typ?.toLowerCase().replace(/^application\//, '');
  if (type !== undefined && type !== 'jwt' && type !== EXPLICIT_TYPE) throw new AssertionRefused(`typ ${JSON.stringify(typ)} is not a client assertion's`);
  if (type === EXPLICIT_TYPE && aud !== ctx.audiences[0]) throw new AssertionRefused(`a ${EXPLICIT_TYPE} names the issuer as its only audience`);
  if (Array.isArray(aud) && !aud.every((a) => ctx.audiences.includes(a))) throw new AssertionRefused('aud names another audience too');
}

/** draft-ietf-oauth-rfc7523bis: the explicit type of a client assertion. */
const EXPLICIT_TYPE = 'client-authentication+jwt';

async function verifySignature(ctx: AssertionContext, client: ClientRow, assertion: string): Promise<JWTVerifyResult> {
  const options = {
    algorithms: [...ASSERTION_SIGNING_ALGS], issuer: client.client_id, subject: client.client_id, audience: [...ctx.audiences],
    requiredClaims: ['exp', 'jti'], currentDate: ctx.now, clockTolerance: CLOCK_TOLERANCE_SECONDS,
  };
  for (const refresh of [false, true]) {
    const keys = await ctx.jwks.keysOf(client, refresh);
    if (!keys) throw new AssertionRefused('the client\'s keys could not be had');
    try {
      return await jwtVerify(assertion, keys, options);
    } catch (error) {
      // RFC 7517 §4.5: an unknown kid may be a key the client just rotated to; its jwks_uri is asked again once.
      if (error instanceof joseErrors.JWKSNoMatchingKey && !refresh && client.jwks_uri !== null) continue;
      throw new AssertionRefused(error instanceof joseErrors.JOSEError ? `${error.code}: ${error.message}` : 'malformed assertion');
    }
  }
  throw new AssertionRefused('no registered key matches');
}
