/**
 * The public keys of private_key_jwt clients (OpenID Connect Core 1.0 §10.1.1):
 * registered inline, or fetched from the client's `jwks_uri` through the SSRF
 * guard of back-channel logout (notice-target.ts: https, or loopback http
 * outside production; public addresses only in production). Fetched sets are
 * kept {@link CACHE_MS}; a `kid` not in the set makes one refetch, at most
 * once per {@link REFETCH_MS} per client, so a client rotating its keys is
 * followed without letting assertions drive a flood of requests; assertions
 * arriving while a fetch is under way wait for it. A fetch that
 * fails (the client's key host down, slow, answering 5xx) is tried again
 * after {@link REFETCH_MS}, not after {@link CACHE_MS}, and meanwhile the last
 * set fetched stays in use for up to {@link STALE_MS} after it was fetched: a
 * blip at the client's key host does not lock the client out.
 */
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { guardedGet } from '../../http/guarded-get.ts';
import type { NoticeTargetPolicy } from '../backchannel/notice-target.ts';
import type { ClientRow } from './clients.repository.ts';

const CACHE_MS = 5 * 60_000;
const REFETCH_MS = 5_000;
const STALE_MS = 60 * 60_000;
const MAX_BYTES = 64 * 1024;
const MAX_CLIENTS = 1000;

export type KeyResolver = ReturnType<typeof createLocalJWKSet>;

/**
 * The set as assertions are verified against it. `EdDSA` and `Ed25519` name one
 * algorithm for an Ed25519 key (RFC 9864 §2.2): a key registered with either `alg`
 * verifies an assertion signed under either name (oauth4webapi and openid-client
 * write `Ed25519`), so such a key's `alg` is left out of the match. Every other
 * key keeps its `alg` (RFC 7517 §4.4).
 */
function keySet(set: JSONWebKeySet): KeyResolver {
  const keys = set.keys.map((key) => {
    if (key.kty !== 'OKP' || key.crv !== 'Ed25519' || (key.alg !== 'EdDSA' && key.alg !== 'Ed25519')) return key;
    const { alg: _either, ...rest } = key;
    return rest;
  });
  return createLocalJWKSet({ ...set, keys });
}

interface Fetched {
  uri: string;
  /** The last set fetched, with when; undefined when none was had yet. */
  good: { resolver: KeyResolver; at: number } | undefined;
  /** When the last fetch was made, and whether it failed. */
  triedAt: number;
  failed: boolean;
}

export class ClientJwks {
  private readonly fetched = new Map<string, Fetched>();
  /** The fetch under way per client: assertions arriving meanwhile wait for it rather than make their own. */
  private readonly fetching = new Map<string, Promise<KeyResolver | undefined>>();

  constructor(private readonly policy: NoticeTargetPolicy, private readonly now: () => number = Date.now) {}

  /** The client's keys; `refresh` asks for a refetch of a jwks_uri (an unknown kid), granted when the last fetch is old enough. */
  async keysOf(client: ClientRow, refresh = false): Promise<KeyResolver | undefined> {
    if (client.jwks !== null) return keySet(client.jwks as JSONWebKeySet);
    const uri = client.jwks_uri;
    if (uri === null) return undefined;
    const found = this.fetched.get(client.client_id);
    const entry = found?.uri === uri ? found : undefined;
    const age = entry ? this.now() - entry.triedAt : Infinity;
    const due = entry?.failed ? age >= REFETCH_MS : age >= CACHE_MS || (refresh && age >= REFETCH_MS);
    if (!due) return this.usable(entry);
    const key = `${client.client_id}\u0000${uri}`;
    let fetching = this.fetching.get(key);
    if (!fetching) {
      fetching = this.refetch(client.client_id, uri).finally(() => this.fetching.delete(key));
      this.fetching.set(key, fetching);
    }
    return fetching;
  }

  /** Fetches the set and records the outcome beside the set last had, as the entry is when the fetch ends. */
  private async refetch(clientId: string, uri: string): Promise<KeyResolver | undefined> {
    const resolver = await this.fetch(uri);
    const now = this.now();
    const found = this.fetched.get(clientId);
    const good = resolver ? { resolver, at: now } : found?.uri === uri ? found.good : undefined;
    const next: Fetched = { uri, good, triedAt: now, failed: resolver === undefined };
    if (this.fetched.size >= MAX_CLIENTS && !this.fetched.has(clientId)) this.fetched.clear();
    this.fetched.set(clientId, next);
    return this.usable(next);
  }

  /** The entry's last good set while it is young enough to stand in for a failed fetch. */
  private usable(entry: Fetched | undefined): KeyResolver | undefined {
    return entry?.good && this.now() - entry.good.at < STALE_MS ? entry.good.resolver : undefined;
  }

  /** Undefined when the set cannot be had (refused address, error status, not a JWK Set): the assertion is then refused. */
  private async fetch(uri: string): Promise<KeyResolver | undefined> {
    if (this.policy.refusal(uri) !== undefined) return undefined;
    try {
      const text = await guardedGet(uri, { isAllowedAddress: this.policy.isAllowedAddress, timeoutMs: 5000, maxBytes: MAX_BYTES, headers: { accept: 'application/json' } });
      if (text === null) return undefined;
      const set = JSON.parse(text) as JSONWebKeySet;
      if (!Array.isArray(set?.keys)) return undefined;
      return keySet(set);
    } catch {
      return undefined;
    }
  }
}
