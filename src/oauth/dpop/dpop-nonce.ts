/**
 * Server-provided DPoP nonces (RFC 9449 §8, §9) without state: a nonce is the
 * HMAC of a time bucket under a key derived from the encryption key, so every
 * instance issues and accepts the same ones. A nonce is accepted in its own
 * bucket and the next one: for {@link NONCE_BUCKET_SECONDS} to twice that.
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

export const NONCE_BUCKET_SECONDS = 300;

export class DpopNonces {
  constructor(private readonly key: KeyObject) {}

  /** The nonce to hand out now (the `DPoP-Nonce` header). */
  current(now: Date): string {
    return this.nonceOf(bucketOf(now));
  }

  /** Whether `nonce` is the current or the previous bucket's nonce. */
  isValid(nonce: string, now: Date): boolean {
    const presented = Buffer.from(nonce);
    const bucket = bucketOf(now);
    return [bucket, bucket - 1].some((b) => {
      const expected = Buffer.from(this.nonceOf(b));
      return expected.length === presented.length && timingSafeEqual(expected, presented);
    });
  }

  private nonceOf(bucket: number): string {
    return createHmac('sha256', this.key).update(`dpop-nonce:${bucket}`).digest('base64url');
  }
}

function bucketOf(now: Date): number {
  return Math.floor(now.getTime() / 1000 / NONCE_BUCKET_SECONDS);
}
