/** What the OAuth services need, built once in the OAuth plugin. */
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import type { ClientCache } from './clients/client-cache.ts';
import type { ClientJwks } from './clients/client-jwks.ts';
import type { DpopNonces } from './dpop/dpop-nonce.ts';
import type { KeyMaterial } from './keys/key-material.ts';
import type { KeyStore } from './keys/key-store.ts';

export interface OAuthContext {
  readonly db: DB;
  readonly clock: Clock;
  /** PUBLIC_URL: the issuer, byte-identical in discovery, tokens and responses. */
  readonly issuer: string;
  readonly material: KeyMaterial;
  readonly keys: KeyStore;
  /** Clients in memory for the token endpoint, checked by version in every statement acting on them. */
  readonly clients: ClientCache;
  /** private_key_jwt clients' public keys, those fetched from a jwks_uri kept a while. */
  readonly clientJwks: ClientJwks;
  /** Seconds a just-rotated refresh token may still be presented (SPEC §5.3, config). */
  readonly refreshGraceSeconds: number;
  /** REQUIRE_PUSHED_AUTHORIZATION_REQUESTS (RFC 9126 §5): every authorization request must be pushed. */
  readonly requirePushedAuthorizationRequests: boolean;
  /** RFC 9449: the server's nonces, and whether every proof must carry one (DPOP_NONCE_REQUIRED). */
  readonly dpop: { readonly nonces: DpopNonces; readonly requireNonce: boolean };
}
