/**
 * Image decoding and re-encoding, bounded per instance. sharp runs every
 * pipeline on a thread of libuv's pool (4 threads by default), which password
 * hashing and the crypto of the token endpoint share: eight large images at
 * once filled the pool and logins waited 7–14 s behind them. So at most
 * {@link IMAGE_CONCURRENCY} images are worked on at a time (each with one
 * libvips thread, see upload-content.ts), at most {@link IMAGE_QUEUE_LENGTH}
 * wait, and a further upload is refused at once with 503 and `Retry-After`
 * instead of piling up memory. One user holds at most
 * {@link IMAGES_PER_USER} places (429), so one client cannot fill the queue.
 */
import { EventEmitter } from 'node:events';
import { uploadProblems } from './uploads.problems.ts';

export const IMAGE_CONCURRENCY = 1;
export const IMAGE_QUEUE_LENGTH = 4;
export const IMAGES_PER_USER = 2;
/** A generous estimate of one image's work, for `Retry-After`. */
const SECONDS_PER_IMAGE = 2;

export interface ImageWorkLimits { concurrency: number; queueLength: number; perUser: number }

export class ImageWorkQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly perUser = new Map<number, number>();
  /** `queued` when a job must wait, `started` and `finished` around its work (for tests and metrics). */
  readonly events = new EventEmitter();

  constructor(private readonly limits: ImageWorkLimits = {
    concurrency: IMAGE_CONCURRENCY, queueLength: IMAGE_QUEUE_LENGTH, perUser: IMAGES_PER_USER,
  }) {}

  /** Images being worked on and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Runs `work` when a place is free; refuses at once (429 / 503 with Retry-After) when none can be had. */
  async run<T>(userId: number, work: () => Promise<T>): Promise<T> {
    const held = this.perUser.get(userId) ?? 0;
    if (held >= this.limits.perUser) {
      throw uploadProblems.tooManyImages(this.limits.perUser, this.retryAfter());
    }
    if (this.running >= this.limits.concurrency && this.waiting.length >= this.limits.queueLength) {
      throw uploadProblems.busy(this.retryAfter());
    }
    this.perUser.set(userId, held + 1);
    try {
      await this.acquire();
      this.events.emit('started');
      try {
        return await work();
      } finally {
        this.release();
        this.events.emit('finished');
      }
    } finally {
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left === 0) this.perUser.delete(userId);
      else this.perUser.set(userId, left);
    }
  }

  private retryAfter(): number {
    return Math.max(1, Math.ceil((this.running + this.waiting.length) / this.limits.concurrency) * SECONDS_PER_IMAGE);
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.concurrency) {
      this.running += 1;
      return Promise.resolve();
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.events.emit('queued');
    return turn;
  }

  /** The next waiting job takes over the place; `running` only drops when nobody waits. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
