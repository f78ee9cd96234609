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
 *   failures count per client and IP, checked *before* the grant runs, so a
 *   stolen code's verifier cannot be guessed faster than the limit from one
 *   address, and a right guess past the limit gains nothing.
 *
 * The counters are in the database (failure-windows.repository.ts), shared by
 * every instance (SPEC §3): N instances limit as one. Only a failing request
 * and a public client's request touch them, so a valid confidential client's
 * exchange or refresh costs nothing more.
 */
import type { Clock } from '../clock.ts';
import type { Executor } from '../db/executor.ts';
import { clientAddress } from '../http/connection-limit.ts';
import { OAuthError, TooManyRequests, UseDpopNonce } from './errors.ts';
import { countFailure, secondsBlocked } from './failure-windows.repository.ts';

export const TOKEN_FAILURES_PER_MINUTE = 30;
const WINDOW_MS = 60_000;

export class FailureLimiter {
  constructor(private readonly db: Executor, private readonly clock: Clock, private readonly limit = TOKEN_FAILURES_PER_MINUTE) {}

  /** One request's attempt, starting unauthenticated from `ip`. */
  begin(ip: string): LimitedAttempt {
    return new LimitedAttempt(this, ip);
  }

  /** Seconds until `key` may fail again, or 0 when it is under the limit. */
  secondsBlocked(key: string): Promise<number> {
    return secondsBlocked(this.db, key, this.limit, this.clock());
  }

  /** Counts a failure of `key` unless it is over the limit: 0 when counted, else the seconds it is blocked for. */
  countFailure(key: string): Promise<number> {
    return countFailure(this.db, key, this.limit, WINDOW_MS, this.clock());
  }
}

/** The limiter as one request sees it: its key moves from the IP to the client once that is authenticated. */
export class LimitedAttempt {
  /** Set once the client is authenticated; until then the key is the address's ({@link keyOf}), made only when a failure needs it. */
  private key: string | undefined;
  /** Whether the limit is checked before the request's work runs (public clients) or only when it failed. */
  private isCheckedBefore = false;

  constructor(private readonly limiter: FailureLimiter, private readonly ip: string) {}

  /** The counter's key: `ip` counted as the connection limit counts clients (an IPv6 address by its /64) until the client is known. */
  private keyOf(): string {
    return this.key ?? `ip:${clientAddress(this.ip)}`;
  }

  /** The client is authenticated: a public client over its limit gets 429 here, before the grant runs. */
  async authenticated(client: { client_id: string; confidential: boolean }): Promise<void> {
    if (client.confidential) {
      this.key = `client:${client.client_id}`;
      return;
    }
    this.isCheckedBefore = true;
    this.key = `public:${client.client_id}\n${clientAddress(this.ip)}`;
    const wait = await this.limiter.secondsBlocked(this.key);
    if (wait > 0) throw new TooManyRequests(wait);
  }

  /** The error to answer a failed request with; counts it unless it is the limiter's own 429, our fault (5xx) or no failure (a pending device code). */
  async failed(error: unknown): Promise<unknown> {
    // RFC 9449 §8: being asked for a nonce is part of the protocol, not a failure of the client.
    if (error instanceof TooManyRequests || error instanceof UseDpopNonce || !(error instanceof OAuthError) || error.status >= 500 || !error.countsAsFailure) return error;
    const wait = await this.limiter.countFailure(this.keyOf());
    // Over the limit: the failure is answered 429 instead (a public client's was checked before its grant ran, and is counted only).
    return wait > 0 && !this.isCheckedBefore ? new TooManyRequests(wait) : error;
  }
}
