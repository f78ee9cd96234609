/**
 * Rate limit of the token and revocation endpoints (SPEC §5.6): failed
 * requests in a minute that starts with the first of them, counted where they can only hurt their author.
 *
 * - Until the client is authenticated, failures count per client IP (an IPv6
 *   address by its /64, as the connection limit counts clients), and the
 *   limit is applied only to requests that fail: once the IP is over it, a
 *   failing request answers 429 instead of its error. A client with valid
 *   credentials from that IP (behind the same NAT as an attacker) is never
 *   refused. Client secrets are 256-bit random, so letting their (cheap,
 *   keyed-digest) check run costs nothing and a guess still never succeeds.
 * - Once a confidential client is authenticated, failures count per client,
 *   and again the limit only turns failing requests into 429: the grant always
 *   runs. Its failures are not only the secret holder's own: a web app
 *   exchanges whatever code a browser brings to its callback, and expired or
 *   replayed refresh tokens are ordinary traffic, so refusing its valid grants
 *   would let its users lock it out. What it could guess (codes, device codes,
 *   refresh tokens) is 256 random bits and needs the secret besides.
 * - A public client authenticates nothing (anyone can claim its id): its
 *   requests take a place among its failures per client and IP *before* the
 *   grant runs, and give it back when they did not fail. So a stolen code's
 *   verifier cannot be guessed faster than the limit from one address, even
 *   by requests sent all at once (each takes its place in one statement, and
 *   no more than the limit find one), and a right guess past the limit gains
 *   nothing.
 *
 * The counters are in the database (failure-windows.repository.ts), shared by
 * every instance (SPEC §3): N instances limit as one. Only a failing request
 * and a public client's request touch them (the latter twice when it
 * succeeds: its place taken, then given back), so a valid confidential
 * client's exchange or refresh costs nothing more.
 */
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { clientAddress } from '../http/connection-limit.ts';
import { OAuthError, TooManyRequests, UseDpopNonce } from './errors.ts';
import { countFailure, uncountFailure, type CountedFailure } from './failure-windows.repository.ts';

export const TOKEN_FAILURES_PER_MINUTE = 30;
const WINDOW_MS = 60_000;

export class FailureLimiter {
  constructor(private readonly db: Executor, private readonly clock: Clock, private readonly limit = TOKEN_FAILURES_PER_MINUTE) {}

  /** One request's attempt, starting unauthenticated from `ip`; the clock is read once for it. */
  begin(ip: string): LimitedAttempt {
    return new LimitedAttempt(this, ip, this.clock());
  }

  /** Counts a failure of `key` at `now` unless it is over the limit. */
  countFailure(key: string, now: Date): Promise<CountedFailure> {
    return countFailure(this.db, key, this.limit, WINDOW_MS, now);
  }

  /** Takes back a failure counted in the window ending at `resetsAt`. */
  uncountFailure(key: string, resetsAt: Date): Promise<void> {
    return uncountFailure(this.db, key, resetsAt);
  }
}

/** The limiter as one request sees it: its key moves from the IP to the client once that is authenticated. */
export class LimitedAttempt {
  /** Set once the client is authenticated; until then the key is the address's ({@link keyOf}), made only when a failure needs it. */
  private key: string | undefined;
  /** A public client's place among its failures, taken before its request's work runs. */
  private place: { readonly key: string; readonly resetsAt: Date } | undefined;

  constructor(private readonly limiter: FailureLimiter, private readonly ip: string, private readonly now: Date) {}

  /** The counter's key: `ip` counted as the connection limit counts clients (an IPv6 address by its /64) until the client is known. */
  private keyOf(): string {
    return this.key ?? `ip:${clientAddress(this.ip)}`;
  }

  /**
   * The client is authenticated. A public client takes its place here, before the grant runs, or gets 429.
   * Called again when the request's work runs again (the client cache's second run): the place taken stays.
   */
  async authenticated(client: { client_id: string; confidential: boolean }): Promise<void> {
    this.key = client.confidential ? `client:${client.client_id}` : `public:${client.client_id}\n${clientAddress(this.ip)}`;
    if (this.place?.key === this.key) return;
    await this.giveBack();
    if (client.confidential) return;
    const counted = await this.limiter.countFailure(this.key, this.now);
    if ('wait' in counted) throw new TooManyRequests(counted.wait);
    this.place = { key: this.key, resetsAt: counted.resetsAt };
  }

  /** The request did not fail: a public client's place is given back. */
  async succeeded(): Promise<void> {
    await this.giveBack();
  }

  /** The error to answer a failed request with; counts it unless it is the limiter's own 429, our fault (5xx) or no failure (the device flow's answers to a genuine device code). */
  async failed(error: unknown): Promise<unknown> {
    // RFC 9449 §8: being asked for a nonce is part of the protocol, not a failure of the client.
    if (error instanceof TooManyRequests || error instanceof UseDpopNonce || !(error instanceof OAuthError) || error.status >= 500 || !error.countsAsFailure) {
      await this.giveBack();
      return error;
    }
    // A public client's failure was counted when it took its place, and was let through then.
    if (this.place !== undefined) return error;
    const counted = await this.limiter.countFailure(this.keyOf(), this.now);
    // Over the limit: the failure is answered 429 instead.
    return 'wait' in counted ? new TooManyRequests(counted.wait) : error;
  }

  /**
   * Gives back the place taken, if any. A database that fails here costs the client one place until its minute
   * is over, not the answer of a request that did its work.
   */
  private async giveBack(): Promise<void> {
    const place = this.place;
    if (place === undefined) return;
    this.place = undefined;
    await this.limiter.uncountFailure(place.key, place.resetsAt).catch(() => {});
  }
}
