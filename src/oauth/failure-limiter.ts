/**
 * Rate limit of the token and revocation endpoints (SPEC §5.6): failed
 * requests per client IP in a sliding minute. Successful requests are never
 * counted, so a busy but honest client is not slowed down, while guessing
 * secrets, codes or verifiers is. Counters are per instance: a guessing
 * attacker gains at most the number of instances as a factor.
 */
import type { Clock } from '../clock.ts';
import { TooManyRequests } from './errors.ts';

export const TOKEN_FAILURES_PER_MINUTE = 30;
const WINDOW_MS = 60_000;
const MAX_TRACKED = 100_000;

export class FailureLimiter {
  private readonly windows = new Map<string, { failures: number; resetAt: number }>();

  constructor(private readonly clock: Clock, private readonly limit = TOKEN_FAILURES_PER_MINUTE) {}

  /** Throws 429 when this IP has failed too often in the current window. */
  check(ip: string): void {
    const entry = this.windows.get(ip);
    const now = this.clock().getTime();
    if (!entry) return;
    if (entry.resetAt <= now) {
      this.windows.delete(ip);
      return;
    }
    if (entry.failures >= this.limit) throw new TooManyRequests(Math.ceil((entry.resetAt - now) / 1000));
  }

  recordFailure(ip: string): void {
    const now = this.clock().getTime();
    const entry = this.windows.get(ip);
    if (entry && entry.resetAt > now) {
      entry.failures += 1;
      return;
    }
    if (this.windows.size >= MAX_TRACKED) this.prune(now);
    this.windows.set(ip, { failures: 1, resetAt: now + WINDOW_MS });
  }

  private prune(now: number): void {
    for (const [ip, entry] of this.windows) if (entry.resetAt <= now) this.windows.delete(ip);
    if (this.windows.size >= MAX_TRACKED) this.windows.clear();
  }
}
