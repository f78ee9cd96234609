/**
 * How fast a device polls for its pending device code (RFC 8628 §3.5): a poll
 * sooner than the interval after the last one is told `slow_down`, and the
 * interval grows by 5 seconds for every later poll.
 *
 * Kept in memory, per instance, like the token endpoint's failure limiter: a
 * pending poll is then one read and writes nothing. A device whose polls
 * alternate between instances is slowed down less; it still waits its interval
 * at each, and guessing a 256-bit device code is no use anyway.
 */
import type { Clock } from '../../clock.ts';
import { DEVICE_POLL_INTERVAL_SECONDS, DEVICE_SLOW_DOWN_SECONDS } from '../lifetimes.ts';

const MAX_TRACKED = 100_000;

interface Pace { lastPollAt: number; intervalSeconds: number; forgetAt: number }

export class PollPace {
  private readonly paces = new Map<string, Pace>();

  constructor(private readonly clock: Clock) {}

  /** Notes a poll of a pending device code (`key`: its digest); true when it came too soon, and then the interval has grown. */
  isTooSoon(key: string, expiresAt: Date): boolean {
    const now = this.clock().getTime();
    const pace = this.paces.get(key);
    if (!pace || pace.forgetAt <= now) {
      if (this.paces.size >= MAX_TRACKED) this.prune(now);
      this.paces.set(key, { lastPollAt: now, intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS, forgetAt: expiresAt.getTime() });
      return false;
    }
    const tooSoon = now - pace.lastPollAt < pace.intervalSeconds * 1000;
    if (tooSoon) pace.intervalSeconds += DEVICE_SLOW_DOWN_SECONDS;
    pace.lastPollAt = now;
    return tooSoon;
  }

  /** The interval the device must now keep, in seconds. */
  intervalOf(key: string): number {
    return this.paces.get(key)?.intervalSeconds ?? DEVICE_POLL_INTERVAL_SECONDS;
  }

  /** The device code was redeemed, denied or expired: no more polls to pace. */
  forget(key: string): void {
    this.paces.delete(key);
  }

  private prune(now: number): void {
    for (const [key, pace] of this.paces) if (pace.forgetAt <= now) this.paces.delete(key);
    if (this.paces.size >= MAX_TRACKED) this.paces.clear();
  }
}
