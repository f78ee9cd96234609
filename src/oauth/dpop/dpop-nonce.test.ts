/** RFC 9449 §8: stateless nonces, valid in their period and the next, the same for every holder of the key. */
import { createSecretKey } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { DpopNonces, NONCE_BUCKET_SECONDS } from './dpop-nonce.ts';

const key = createSecretKey(new Uint8Array(32).fill(7));
const start = new Date(Math.floor(Date.UTC(2026, 0, 1) / 1000 / NONCE_BUCKET_SECONDS) * NONCE_BUCKET_SECONDS * 1000);
const after = (seconds: number) => new Date(start.getTime() + seconds * 1000);

describe('DpopNonces', () => {
  test('one nonce per period, the same from another instance with the same key, not with another key', () => {
    const nonces = new DpopNonces(key);
    const nonce = nonces.current(start);
    expect(nonce).toMatch(/^[\w-]{43}$/);
    expect(nonces.current(after(NONCE_BUCKET_SECONDS - 1))).toBe(nonce);
    expect(nonces.current(after(NONCE_BUCKET_SECONDS))).not.toBe(nonce);
    expect(new DpopNonces(key).current(start)).toBe(nonce);
    expect(new DpopNonces(createSecretKey(new Uint8Array(32))).isValid(nonce, start)).toBe(false);
  });

  test('accepted in its period and the next, then no longer; anything else never', () => {
    const nonces = new DpopNonces(key);
    const nonce = nonces.current(start);
    expect(nonces.isValid(nonce, start)).toBe(true);
    expect(nonces.isValid(nonce, after(2 * NONCE_BUCKET_SECONDS - 1))).toBe(true);
    expect(nonces.isValid(nonce, after(2 * NONCE_BUCKET_SECONDS))).toBe(false);
    expect(nonces.isValid(nonces.current(after(NONCE_BUCKET_SECONDS)), start)).toBe(false);
    for (const other of ['', 'x', `${nonce}x`, nonce.slice(1)]) expect(nonces.isValid(other, start)).toBe(false);
  });
});
