/**
 * Checking a DPoP proof (RFC 9449 §4.3): a JWT with `typ: dpop+jwt`, signed
 * with an asymmetric algorithm of {@link DPOP_SIGNING_ALGS} by the public key
 * in its `jwk` header, whose `htm` and `htu` name this request (the URI
 * compared without query and fragment), whose `iat` is recent, whose `ath`
 * (at a protected resource) is the hash of the access token presented, and
 * whose `jti` has not been seen before for that key. The key's SHA-256 JWK
 * thumbprint (RFC 7638) is what tokens are bound to.
 */
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, errors as joseErrors, jwtVerify, type JWK } from 'jose';
import { InvalidDpopProof, UseDpopNonce } from '../errors.ts';
import type { DpopNonces } from './dpop-nonce.ts';

/** RFC 9449 §5.1 `dpop_signing_alg_values_supported`: asymmetric only; `Ed25519` is EdDSA's fully-specified name (RFC 9864). */
export const DPOP_SIGNING_ALGS = ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'] as const;
/** How old a proof may be (its `iat`), and how far ahead of our clock. */
export const PROOF_MAX_AGE_SECONDS = 300;
const PROOF_CLOCK_SKEW_SECONDS = 60;
/** Members of private or symmetric JWKs (RFC 7518 §6): the `jwk` header carries a public key only (§4.2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface ProofExpectation {
  /** The request's method (`htm`). */
  method: string;
  /** The endpoint's URI as the client must name it (`htu`): issuer and path. */
  uri: string;
  /** At a protected resource: the access token the proof must name (`ath`, §4.3 item 10). */
  accessToken?: string;
  now: Date;
  nonces: DpopNonces;
  /** Whether a proof without a nonce is refused with `use_dpop_nonce` (§8). */
  requireNonce: boolean;
  /** Records the proof's jti digest until `expiresAt`; false when it was recorded before (a replay). */
  recordJti(digest: Buffer, expiresAt: Date): Promise<boolean>;
}

/** §11.1: the proof's jti was used before with its key. */
export class ReplayedDpopProof extends InvalidDpopProof {
  constructor(readonly jkt: string) {
    super('The DPoP proof was used before (jti).');
  }
}

export interface VerifiedProof {
  /** The SHA-256 JWK thumbprint of the proof's key (`cnf.jkt`, §6.1). */
  jkt: string;
  /** Whether the proof carried a nonce that is not the current one (the client should be told the new one). */
  staleNonce: boolean;
}

/** Throws {@link InvalidDpopProof} or {@link UseDpopNonce}. */
export async function verifyDpopProof(proof: string, expect: ProofExpectation): Promise<VerifiedProof> {
  const { header, payload } = await verifyProofSignature(proof);
  const now = Math.floor(expect.now.getTime() / 1000);
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 500) throw new InvalidDpopProof('The DPoP proof needs a jti.');
  if (payload.htm !== expect.method) throw new InvalidDpopProof('The DPoP proof is for another HTTP method (htm).');
  if (!isSameUri(payload.htu, expect.uri)) throw new InvalidDpopProof('The DPoP proof is for another URI (htu).');
  if (typeof payload.iat !== 'number') throw new InvalidDpopProof('The DPoP proof needs an iat.');
  if (payload.iat < now - PROOF_MAX_AGE_SECONDS || payload.iat > now + PROOF_CLOCK_SKEW_SECONDS) {
    throw new InvalidDpopProof('The DPoP proof is not recent enough (iat).');
  }
  if (expect.accessToken !== undefined && payload.ath !== createHash('sha256').update(expect.accessToken).digest('base64url')) {
    throw new InvalidDpopProof('The DPoP proof does not name this access token (ath).');
  }
  const staleNonce = checkNonce(payload.nonce, expect);
  const jkt = await calculateJwkThumbprint(header.jwk as JWK, 'sha256');
  const digest = createHash('sha256').update(`${jkt}\0${payload.jti}`).digest();
  const expiresAt = new Date((payload.iat + PROOF_MAX_AGE_SECONDS + 1) * 1000);
  if (!(await expect.recordJti(digest, expiresAt))) throw new ReplayedDpopProof(jkt);
  return { jkt, staleNonce };
}

/** §4.3 items 2–7: one JWT, `typ`, an accepted asymmetric `alg`, a public `jwk` and a signature by it. */
async function verifyProofSignature(proof: string) {
  if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(proof) || proof.length > 8192) throw new InvalidDpopProof('The DPoP header must hold one proof JWT.');
  const { alg, typ } = protectedHeader(proof);
  if (!DPOP_SIGNING_ALGS.some((accepted) => accepted === alg)) {
    throw new InvalidDpopProof(`The DPoP proof must be signed with one of ${DPOP_SIGNING_ALGS.join(', ')} (alg).`);
  }
  if (typ !== 'dpop+jwt') throw new InvalidDpopProof('The DPoP proof\'s typ must be dpop+jwt.');
  try {
    const { protectedHeader, payload } = await jwtVerify(proof, async (protectedHeader, token) => {
      const jwk = protectedHeader.jwk as Record<string, unknown> | undefined;
      if (jwk !== undefined && PRIVATE_MEMBERS.some((member) => member in jwk)) throw new InvalidDpopProof('The DPoP proof\'s jwk must be a public key.');
      return EmbeddedJWK(protectedHeader, token);
    }, { typ: 'dpop+jwt', algorithms: [...DPOP_SIGNING_ALGS] });
    return { header: protectedHeader, payload };
  } catch (error) {
    if (error instanceof InvalidDpopProof) throw error;
    const detail = error instanceof joseErrors.JOSEError ? `${error.code}: ${error.message}` : 'malformed';
    throw new InvalidDpopProof('The DPoP proof is invalid.').withDetail(detail);
  }
}

/** The proof's header, read before its signature is checked to name what is wrong with it; an undecodable header is not a JWT. */
function protectedHeader(proof: string): { alg?: unknown; typ?: unknown } {
  try {
    return decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProof('The DPoP header must hold one proof JWT.');
  }
}

/**
 * §4.3 item 9: `htu` without query and fragment is the endpoint's URI, after RFC 3986 §6.2.2's
 * syntax-based normalisation: the WHATWG parser lowercases scheme and host, drops a default port and
 * removes dot segments; the path's percent-encodings are then normalised (§6.2.2.1 and §6.2.2.2:
 * `%74oken` is `token`, `%2f` is `%2F`).
 */
export function isSameUri(htu: unknown, expected: string): boolean {
  const actual = typeof htu === 'string' ? URL.parse(htu) : null;
  if (!actual) return false;
  actual.search = '';
  actual.hash = '';
  actual.pathname = withNormalPercentEncoding(actual.pathname);
  // Both sides, as the expected URL is given: an endpoint's path written with an escape is still the same URI.
  const endpoint = new URL(expected);
  endpoint.pathname = withNormalPercentEncoding(endpoint.pathname);
  return actual.href === endpoint.href;
}

/** RFC 3986 §2.3: the characters a percent-encoding stands for needlessly, decoded; the others in upper-case hex. */
function withNormalPercentEncoding(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return /^[A-Za-z0-9\-._~]$/.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

/** §8: a nonce, when sent, must be one of ours and live; when required, it must be sent. Whether a newer one exists. */
function checkNonce(nonce: unknown, expect: ProofExpectation): boolean {
  if (nonce === undefined) {
    if (expect.requireNonce) throw new UseDpopNonce('Authorization server requires nonce in DPoP proof.', expect.nonces.current(expect.now));
    return false;
  }
  if (typeof nonce !== 'string' || !expect.nonces.isValid(nonce, expect.now)) {
    throw new UseDpopNonce('The DPoP proof\'s nonce is invalid or expired.', expect.nonces.current(expect.now));
  }
  return nonce !== expect.nonces.current(expect.now);
}
