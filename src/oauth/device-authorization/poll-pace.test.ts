import { describe, expect, test } from 'vitest';
import { PollPace } from './poll-pace.ts';

function pace() {
  let now = Date.parse('2026-05-01T10:00:00Z');
  const clock = () => new Date(now);
  const expiresAt = new Date(now + 600_000);
  return { pace: new PollPace(clock), expiresAt, advance: (seconds: number) => { now += seconds * 1000; } };
}

describe('the polling interval (RFC 8628 §3.5)', () => {
  test('polls 5 seconds apart are never too soon', () => {
    const { pace: p, expiresAt, advance } = pace();
    for (let i = 0; i < 5; i++) {
      expect(p.isTooSoon('a', expiresAt)).toBe(false);
      advance(5);
    }
    expect(p.intervalOf('a')).toBe(5);
  });

  test('a poll sooner than the interval is too soon, and each one adds 5 seconds', () => {
    const { pace: p, expiresAt, advance } = pace();
    expect(p.isTooSoon('a', expiresAt)).toBe(false);
    advance(4.999);
    expect(p.isTooSoon('a', expiresAt)).toBe(true);
    expect(p.intervalOf('a')).toBe(10);
    advance(9);
    expect(p.isTooSoon('a', expiresAt)).toBe(true);
    expect(p.intervalOf('a')).toBe(15);
    advance(15);
    expect(p.isTooSoon('a', expiresAt)).toBe(false);
    expect(p.intervalOf('a')).toBe(15);
  });

  test('device codes are paced apart; a forgotten or expired one starts again', () => {
    const { pace: p, expiresAt, advance } = pace();
    p.isTooSoon('a', expiresAt);
    expect(p.isTooSoon('b', expiresAt)).toBe(false);
    p.forget('a');
    expect(p.isTooSoon('a', expiresAt)).toBe(false);
    advance(601);
    expect(p.isTooSoon('a', expiresAt)).toBe(false);
  });
});
