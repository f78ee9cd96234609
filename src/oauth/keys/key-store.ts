/**
 * The instance's view of the shared signing keys: imported key objects and the
 * JWKS body, computed once per load (SPEC §8). A rotation done by any instance
 * or the CLI reaches every instance at once: on PostgreSQL a change to the key
 * table is announced (migration 048) and {@link KeyStore.invalidate} reloads
 * (wired by key-notifications.ts); a token naming an unknown `kid` reloads on
 * that same request, at most once per {@link UNKNOWN_KID_RELOAD_SECONDS}. The
 * periodic reloads ({@link KEY_RELOAD_SECONDS}, {@link JWKS_RELOAD_SECONDS}
 * for the JWKS) remain for a listening connection that is down. A reload that
 * fails (the database is down) keeps the keys last loaded: JWKS, signing and
 * verification answer from memory through an outage; only before the first
 * successful load is there nothing to answer with.
 */
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { algorithmOfKey, DEFAULT_SIGNING_ALG, type SigningAlg } from '../jose/algorithms.ts';
import { encodeSegment, signJws } from '../jose/jws.ts';
import type { KeyMaterial } from './key-material.ts';
import { bootstrapSigningKey, loadSigningKeys, type StoredSigningKey } from './signing-keys.ts';

export const KEY_RELOAD_SECONDS = 60;
/** The JWKS served by an instance is at most this old. */
export const JWKS_RELOAD_SECONDS = 5;
/**
 * HTTP caches may keep the JWKS this long: well below what client libraries
 * wait before refetching on an unknown `kid` (openid-client and oauth4webapi:
 * 60 s; jose 30 s), and short, because `keys rotate` publishes new keys this
 * long (plus the reload) before they sign ({@link KEY_PUBLISH_LEAD_SECONDS}).
 */
export const JWKS_CACHE_SECONDS = 10;
/**
 * `keys rotate` on PostgreSQL publishes new keys this long before they sign: every instance lists
 * them by then (the notification usually within milliseconds; a listening connection that is down
 * within {@link JWKS_RELOAD_SECONDS}), and so does every cache of the JWKS
 * ({@link JWKS_CACHE_SECONDS}), with 5 seconds to spare for the commit and for clocks that differ a
 * little. A relying party that meets a new `kid` and refetches the JWKS, whichever instance or cache
 * answers, finds the key.
 */
export const KEY_PUBLISH_LEAD_SECONDS = JWKS_CACHE_SECONDS + JWKS_RELOAD_SECONDS + 5;
/**
 * Tokens naming unknown kids cause at most one reload per this many seconds: made-up kids cannot
 * hammer the database, and a real new key is found on its first request (the rotation's notification
 * usually came before it anyway).
 */
export const UNKNOWN_KID_RELOAD_SECONDS = 1;
/** A `kid` longer than this is no key of ours (ours are RFC 7638 thumbprints, 43 characters). */
const MAX_KID_LENGTH = 100;
/** After a failed reload, requests use the keys in memory this long before one of them tries again. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

export interface Signer {
  readonly kid: string;
  readonly alg: SigningAlg;
  /**
   * Encoded protected headers, serialised once per key: `typ: at+jwt` (RFC 9068 §2.1), `typ: JWT` and
   * `typ: logout+jwt` (OpenID Connect Back-Channel Logout 1.0 §2.4).
   */
  readonly accessTokenHeader: string;
  readonly idTokenHeader: string;
  readonly logoutTokenHeader: string;
  /** Compact JWS of `payload` under one of the headers above, signed off the event loop. */
  sign(headerSegment: string, payload: object): Promise<string>;
}

/** Signs with this key under the algorithm its type serves: its headers are encoded once. */
export function signerOf(key: Pick<StoredSigningKey, 'kid' | 'privateKey'>): Signer {
  const alg = algorithmOfKey(key.privateKey);
  if (alg === undefined) throw new Error(`signing key ${key.kid} is of no supported type`);
  return {
    kid: key.kid,
    alg,
    sign: (headerSegment, payload) => signJws(alg, headerSegment, payload, key.privateKey),
    accessTokenHeader: encodeSegment({ alg, typ: 'at+jwt', kid: key.kid }),
    idTokenHeader: encodeSegment({ alg, typ: 'JWT', kid: key.kid }),
    logoutTokenHeader: encodeSegment({ alg, typ: 'logout+jwt', kid: key.kid }),
  };
}

/**
 * The key of each algorithm that signs at `now` (ms), and until when that choice holds: the newest key
 * already active and not yet retired; a rotation's new key is published before it signs
 * ({@link KEY_PUBLISH_LEAD_SECONDS}), and the old one signs until then. Failing that, the newest key
 * already active (never signing with none), then the newest of all.
 */
function signersAt(keys: readonly StoredSigningKey[], now: number): { signers: Map<SigningAlg, Signer>; until: number } {
  const signing = (key: StoredSigningKey) => key.activatedAt.getTime() <= now && (key.retiredAt === null || key.retiredAt.getTime() > now);
  const started = (key: StoredSigningKey) => key.activatedAt.getTime() <= now;
  const signers = new Map<SigningAlg, Signer>();
  for (const chosen of [signing, started, () => true]) {
    for (const key of keys) {
      if (chosen(key) && !signers.has(key.alg)) signers.set(key.alg, signerOf(key));
    }
  }
  const changes = keys.flatMap((key) => [key.activatedAt.getTime(), key.retiredAt?.getTime() ?? Infinity]).filter((at) => at > now);
  return { signers, until: Math.min(Infinity, ...changes) };
}

export class KeyStore {
  private byKid = new Map<string, KeyObject>();
  private keys: readonly StoredSigningKey[] = [];
  private active = new Map<SigningAlg, Signer>();
  /** When {@link active} next changes by itself (a published key starts signing): ms, or Infinity. */
  private activeUntil = Infinity;
  private loadedAt = 0;
  private hasLoaded = false;
  private failedAt = Number.NEGATIVE_INFINITY;
  private unknownKidReloadAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  /** The JWKS document, serialised once per load. */
  jwksBody = '{"keys":[]}';

  constructor(private readonly db: DB, private readonly material: KeyMaterial, private readonly clock: Clock) {}

  private bootstrapped = false;

  /**
   * Loads the keys; the first load also imports the configured key when the
   * table is empty. Lazy, so that building the app needs no database (the
   * tests build apps on a database that is down; `main.ts` connects first).
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
        this.keys = keys;
        ({ signers: this.active, until: this.activeUntil } = signersAt(keys, this.clock().getTime()));
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
    await this.reloadKeepingLastGood();
  }

  private async reloadKeepingLastGood(): Promise<void> {
    try {
      await this.reload();
    } catch (error) {
      if (!this.hasLoaded) throw error;
      this.failedAt = this.clock().getTime();
    }
  }

  /**
   * The keys changed in the database (a notification), or may have while nobody listened (a listening
   * connection restored): load again, after any load under way, which may have read the table before
   * the change. Before the first load there is nothing to refresh. Never rejects once keys were loaded.
   */
  async invalidate(): Promise<void> {
    if (!this.hasLoaded && !this.loading) return;
    await this.loading?.catch(() => {});
    if (this.hasLoaded) await this.reloadKeepingLastGood();
  }

  /**
   * A token names a key this instance has not loaded: another instance or the CLI may have just
   * rotated. The first such request reloads and is verified with the fresh keys; requests arriving
   * meanwhile share that load, and later ones wait for the next interval (refused until then).
   */
  private async reloadForUnknownKid(kid: string): Promise<void> {
    if (this.loading) await this.loading.catch(() => {}); // a load under way may bring the key
    if (this.byKid.has(kid)) return;
    const now = this.clock().getTime();
    if (now - this.unknownKidReloadAt >= UNKNOWN_KID_RELOAD_SECONDS * 1000) {
      this.unknownKidReloadAt = now;
      await this.reloadKeepingLastGood();
    } else if (this.loading) {
      await this.loading.catch(() => {}); // this interval's reload, begun while this request waited
    }
  }

  /**
   * The key that signs for `alg` now. `keys rotate` publishes new keys first and they sign from the
   * time it stored (signing-keys.ts `rotateSigningKey`): this instance switches then by itself. A
   * client meeting a new `kid` in a cached JWKS refetches the JWKS (OIDC Core §10.1.1), and instances
   * reload on an unknown `kid`.
   */
  async signer(alg: SigningAlg = DEFAULT_SIGNING_ALG): Promise<Signer> {
    await this.fresh(KEY_RELOAD_SECONDS);
    const now = this.clock().getTime();
    if (now >= this.activeUntil) ({ signers: this.active, until: this.activeUntil } = signersAt(this.keys, now));
    const signer = this.active.get(alg);
    if (!signer) throw new Error(`no ${alg} signing key available`);
    return signer;
  }

  /**
   * The public key of `kid`, or undefined when no live key has that id. Its type fixes the one
   * algorithm it verifies (jose/algorithms.ts).
   */
  async verificationKey(kid: string | undefined): Promise<KeyObject | undefined> {
    await this.fresh(KEY_RELOAD_SECONDS);
    if (kid === undefined) return undefined;
    if (!this.byKid.has(kid) && kid.length <= MAX_KID_LENGTH) await this.reloadForUnknownKid(kid);
    return this.byKid.get(kid);
  }

  async jwks(): Promise<string> {
    await this.fresh(JWKS_RELOAD_SECONDS);
    return this.jwksBody;
  }
}
