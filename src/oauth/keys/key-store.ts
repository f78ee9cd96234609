/**
 * The instance's view of the shared signing keys: imported key objects and the
 * JWKS body, computed once per load (SPEC §8), reloaded every
 * {@link KEY_RELOAD_SECONDS} and when a token names an unknown `kid`, so that
 * a rotation done by any instance or the CLI reaches every instance. The JWKS
 * is held to {@link JWKS_RELOAD_SECONDS}: whichever instance a client asks,
 * it lists a new key within seconds, before any instance can have signed with
 * it for long. A reload that fails (the database is down) keeps the keys last
 * loaded: JWKS, signing and verification answer from memory through an outage;
 * only before the first successful load is there nothing to answer with.
 */
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { encodeSegment, signRs256 } from '../jose/jws.ts';
import type { KeyMaterial } from './key-material.ts';
import { bootstrapSigningKey, loadSigningKeys, type StoredSigningKey } from './signing-keys.ts';

export const KEY_RELOAD_SECONDS = 60;
/** The JWKS served by an instance is at most this old. */
export const JWKS_RELOAD_SECONDS = 5;
/**
 * HTTP caches may keep the JWKS this long: no longer than client libraries
 * wait before refetching on an unknown `kid` (openid-client and oauth4webapi:
 * 60 s), so that their refetch after a rotation is not answered from a stale
 * browser cache.
 */
export const JWKS_CACHE_SECONDS = 60;
/** An unknown kid triggers at most one reload per this many seconds. */
const UNKNOWN_KID_RELOAD_SECONDS = 5;
/** After a failed reload, requests use the keys in memory this long before one of them tries again. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

export interface Signer {
  readonly kid: string;
  /**
   * Encoded protected headers, serialised once per key: `typ: at+jwt` (RFC 9068 §2.1), `typ: JWT` and
   * `typ: logout+jwt` (OpenID Connect Back-Channel Logout 1.0 §2.4).
   */
  readonly accessTokenHeader: string;
  readonly idTokenHeader: string;
  readonly logoutTokenHeader: string;
  /** RS256 compact JWS of `payload` under one of the headers above, signed off the event loop. */
  sign(headerSegment: string, payload: object): Promise<string>;
}

/** Signs with this key: its headers are encoded once. */
export function signerOf(key: Pick<StoredSigningKey, 'kid' | 'privateKey'>): Signer {
  return {
    kid: key.kid,
    sign: (headerSegment, payload) => signRs256(headerSegment, payload, key.privateKey),
    accessTokenHeader: encodeSegment({ alg: 'RS256', typ: 'at+jwt', kid: key.kid }),
    idTokenHeader: encodeSegment({ alg: 'RS256', typ: 'JWT', kid: key.kid }),
    logoutTokenHeader: encodeSegment({ alg: 'RS256', typ: 'logout+jwt', kid: key.kid }),
  };
}

export class KeyStore {
  private byKid = new Map<string, KeyObject>();
  private active: Signer | undefined;
  private loadedAt = 0;
  private hasLoaded = false;
  private failedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  /** The JWKS document, serialised once per load. */
  jwksBody = '{"keys":[]}';

  constructor(private readonly db: DB, private readonly material: KeyMaterial, private readonly clock: Clock) {}

  private bootstrapped = false;

  /**
   * Loads the keys; the first load also imports the configured key when the
   * table is empty. Lazy, so that building the app needs no database (an
   * instance whose database is down still starts and answers 503).
   */
  reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        if (!this.bootstrapped) {
          await bootstrapSigningKey(this.db, this.material, this.clock());
          this.bootstrapped = true;
        }
        const keys = await loadSigningKeys(this.db, this.material, this.clock());
        this.byKid = new Map(keys.map((k) => [k.kid, k.publicKey]));
        const active = keys.find((k) => k.retiredAt === null) ?? keys[0];
        this.active = active === undefined ? undefined : signerOf(active);
        this.jwksBody = JSON.stringify({ keys: keys.map((k) => k.publicJwk) });
        this.loadedAt = this.clock().getTime();
        this.hasLoaded = true;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /**
   * Reloads when the keys are older than `maxAgeSeconds`. A failure is thrown only when no load ever
   * succeeded; otherwise the last good keys stay, and requests do not wait on the database again for
   * {@link RETRY_AFTER_FAILURE_SECONDS} (one that needs it answers 503 on its own query).
   */
  private async fresh(maxAgeSeconds: number): Promise<void> {
    const now = this.clock().getTime();
    if (now - this.loadedAt <= maxAgeSeconds * 1000) return;
    if (this.hasLoaded && now - this.failedAt < RETRY_AFTER_FAILURE_SECONDS * 1000) return;
    try {
      await this.reload();
    } catch (error) {
      if (!this.hasLoaded) throw error;
      this.failedAt = this.clock().getTime();
    }
  }

  /**
   * The active key: the newest one not retired. `keys rotate` activates a new
   * key at once (SPEC §3); a client meeting its `kid` in a cached JWKS refetches
   * the JWKS (OIDC Core §10.1.1), and instances reload on an unknown `kid`.
   */
  async signer(): Promise<Signer> {
    await this.fresh(KEY_RELOAD_SECONDS);
    if (!this.active) throw new Error('no signing key available');
    return this.active;
  }

  /** The public key of `kid`, or undefined when no live key has that id. */
  async verificationKey(kid: string | undefined): Promise<KeyObject | undefined> {
    await this.fresh(KEY_RELOAD_SECONDS);
    if (kid === undefined) return undefined;
    let key = this.byKid.get(kid);
    if (!key && kid.length <= 100) {
      await this.fresh(UNKNOWN_KID_RELOAD_SECONDS);
      key = this.byKid.get(kid);
    }
    return key;
  }

  async jwks(): Promise<string> {
    await this.fresh(JWKS_RELOAD_SECONDS);
    return this.jwksBody;
  }
}
