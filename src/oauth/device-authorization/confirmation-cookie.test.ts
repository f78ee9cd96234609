import { describe, expect, test } from 'vitest';
import { isConfirmedHere, MAX_CONFIRMED_DEVICES, withConfirmedDevice } from './confirmation-cookie.ts';

const continuation = (n: number) => `${String(n).padStart(2, '0')}${'A'.repeat(41)}`;

describe('the confirmed devices cookie', () => {
  test('holds the newest continuations, up to the limit, and recognises only those', () => {
    let cookie: string | undefined;
    for (let n = 0; n <= MAX_CONFIRMED_DEVICES; n++) cookie = withConfirmedDevice(cookie, continuation(n));
    expect(isConfirmedHere(cookie, continuation(MAX_CONFIRMED_DEVICES))).toBe(true);
    expect(isConfirmedHere(cookie, continuation(1))).toBe(true);
    expect(isConfirmedHere(cookie, continuation(0))).toBe(false); // the oldest gave way
    expect(isConfirmedHere(cookie, continuation(99))).toBe(false);
  });

  test('a continuation confirmed again is kept once, first', () => {
    const cookie = withConfirmedDevice(withConfirmedDevice(withConfirmedDevice(undefined, continuation(1)), continuation(2)), continuation(1));
    expect(cookie).toBe(`${continuation(1)}~${continuation(2)}`);
  });

  test('nothing else is recognised: no cookie, a malformed cookie or continuation, a part of one', () => {
    const cookie = withConfirmedDevice(undefined, continuation(1));
    expect(isConfirmedHere(undefined, continuation(1))).toBe(false);
    expect(isConfirmedHere('', continuation(1))).toBe(false);
    expect(isConfirmedHere(cookie, undefined)).toBe(false);
    expect(isConfirmedHere(cookie, [continuation(1)])).toBe(false);
    expect(isConfirmedHere(cookie, continuation(1).slice(1))).toBe(false);
    expect(isConfirmedHere(`${continuation(1)}x`, `${continuation(1)}x`)).toBe(false);
    expect(isConfirmedHere('~'.repeat(10_000) + continuation(1), continuation(1))).toBe(false);
  });
});
