/**
 * The `id_token_hint` of a logout request (RP-Initiated Logout 1.0 §2): an ID
 * token this server issued, naming the client (`aud`), the member (`sub`) and
 * the login session (`sid`). Signature, algorithm and issuer are checked as
 * for any token of ours; an expired hint is accepted (§2: the OP need not
 * care, an RP typically logs out after its ID token has expired).
 */
import { isMediaType, isValidJwsSignature, parseJws } from '../jose/jws.ts';
import type { KeyStore } from '../keys/key-store.ts';

export interface IdTokenHint {
  /** The client the ID token was issued to. */
  clientId: string;
  sub: string;
  /** The login session it was issued under; undefined for tokens without one. */
  sid: string | undefined;
}

/** The hint's claims when it is an ID token of ours, whatever its expiry; undefined otherwise. */
export async function verifyIdTokenHint(keys: Pick<KeyStore, 'verificationKey'>, issuer: string, token: string): Promise<IdTokenHint | undefined> {
  const jws = token.length > 8192 ? undefined : parseJws(token);
  if (!jws) return undefined;
  const { header, payload } = jws;
  // RFC 8725 §3.1, §3.11: the algorithm is the key's (never `none`); an access token (`at+jwt`) is no ID token.
  if (header.crit !== undefined || (header.typ !== undefined && !isMediaType(header.typ, 'jwt'))) return undefined;
  const key = await keys.verificationKey(typeof header.kid === 'string' ? header.kid : undefined);
  if (!key || !isValidJwsSignature(jws, key)) return undefined;
  const clientId = audience(payload.aud);
  if (payload.iss !== issuer || clientId === undefined || typeof payload.sub !== 'string') return undefined;
  return { clientId, sub: payload.sub, sid: typeof payload.sid === 'string' ? payload.sid : undefined };
}

/** OpenID Connect Core §2: `aud` is the client id, alone or as the one member of an array. */
function audience(aud: unknown): string | undefined {
  if (typeof aud === 'string') return aud;
  return Array.isArray(aud) && aud.length === 1 && typeof aud[0] === 'string' ? aud[0] : undefined;
}
