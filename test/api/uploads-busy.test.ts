/**
 * Image work is bounded per instance: a burst of uploads waits in a small
 * queue, uploads beyond it are refused at once (503, Retry-After), one user
 * holds at most two places and makes at most 30 uploads in 10 minutes (429),
 * and logins are answered while image uploads are still in progress.
 * Ordered by events (the queue's own), never by wall-clock thresholds.
 */
import { once } from 'node:events';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImageWorkQueue } from '../../src/api/uploads/image-work-queue.ts';
import { UPLOAD_WINDOW_SECONDS, UPLOADS_PER_WINDOW } from '../../src/api/uploads/upload-rate.ts';
import { insertUpload } from '../../src/api/uploads/uploads.repository.ts';
import { TestClock } from '../helpers/clock.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import type { TestSession } from '../helpers/session.ts';

const queue = new ImageWorkQueue({ concurrency: 1, queueLength: 1, perUser: 2 });
const clock = new TestClock();
const t = useTestApp({ clock, imageWork: queue });
let image: Buffer;

beforeAll(async () => {
  // A small PNG that decodes to 24 megapixels: real work for sharp.
  image = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();
});

const upload = (session: TestSession, filename: string, bytes: Buffer) =>
  t.call('POST', '/api/uploads', session, { filename, body: bytes.toString('base64') });

function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => { open = resolve; });
  return { opened, open };
}

describe('the image work queue', () => {
  it('runs one job at a time, lets one wait, refuses the next with 503 and Retry-After, and hands the place on', async () => {
    const local = new ImageWorkQueue({ concurrency: 1, queueLength: 1, perUser: 5 });
    const first = gate();
    const events: string[] = [];
    const running = local.run(1, async () => { await first.opened; events.push('first done'); });
    const waiting = local.run(2, async () => { events.push('second ran'); });
    expect(local.load).toEqual({ running: 1, waiting: 1 });
    const refused = await local.run(3, async () => 'never').catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 503, code: 'upload.busy' });
    expect(Number((refused as { headers: Record<string, string> }).headers['retry-after'])).toBeGreaterThan(0);
    first.open();
    await Promise.all([running, waiting]);
    expect(events).toEqual(['first done', 'second ran']);
    expect(local.load).toEqual({ running: 0, waiting: 0 });
  });

  it('gives one user at most two places (429 with Retry-After), and frees them when their jobs end', async () => {
    const local = new ImageWorkQueue({ concurrency: 1, queueLength: 5, perUser: 2 });
    const held = gate();
    const jobs = [local.run(7, () => held.opened), local.run(7, () => held.opened)];
    const third = await local.run(7, async () => 'never').catch((e: unknown) => e);
    expect(third).toMatchObject({ status: 429, code: 'upload.rate-limited' });
    const otherUser = local.run(8, async () => 'other user');
    expect(local.load).toEqual({ running: 1, waiting: 2 });
    held.open();
    await Promise.all(jobs);
    expect(await otherUser).toBe('other user');
    expect(await local.run(7, async () => 'again')).toBe('again');
  });
});

describe('POST /api/uploads under load', () => {
  it('queues an image behind running work, refuses one beyond the queue (503, Retry-After), and answers a login meanwhile', async () => {
    const [alice, bob] = await Promise.all([makeUser(t.db), makeUser(t.db)]);
    const [aliceSession, bobSession] = [await t.logIn(alice), await t.logIn(bob)];
    // The only place is held by real image work that ends when the test says so.
    const held = gate();
    const holder = queue.run(0, async () => { await sharp(image).resize(2560).jpeg().toBuffer(); await held.opened; });
    const queued = once(queue.events, 'queued');
    let aliceDone = false;
    const aliceUpload = upload(aliceSession, 'photo.png', image).then((r) => { aliceDone = true; return r; });
    await queued;

    const busy = await upload(bobSession, 'photo.png', image);
    expect(busy.statusCode).toBe(503);
    expect(busy.headers['content-type']).toContain('application/problem+json');
    expect(busy.json()).toMatchObject({ status: 503, code: 'upload.busy' });
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);

    const login = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: bob.email, password: TEST_PASSWORD } });
    expect(login.statusCode).toBe(200);
    expect(aliceDone).toBe(false);
    expect(queue.load).toEqual({ running: 1, waiting: 1 });

    held.open();
    await holder;
    const stored = await aliceUpload;
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json().mimeType).toBe('image/png');
    expect(queue.load).toEqual({ running: 0, waiting: 0 });
    expect(await t.db.selectFrom('uploads').select('uuid').where('user_id', '=', bob.id).execute()).toEqual([]);
  });

  it(`refuses a user's upload beyond ${UPLOADS_PER_WINDOW} in ${UPLOAD_WINDOW_SECONDS / 60} minutes with 429 and Retry-After, before any image work`, async () => {
    const user = await makeUser(t.db);
    const session = await t.logIn(user);
    for (let i = 0; i < UPLOADS_PER_WINDOW; i++) {
      await insertUpload(t.db, {
        uuid: crypto.randomUUID(), userId: user.id, filename: `f${i}.txt`, mimeType: 'text/plain', filesize: 1, content: Buffer.from('x'),
      }, clock.now());
    }
    const refused = await upload(session, 'photo.png', image);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 429, code: 'upload.rate-limited' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(UPLOAD_WINDOW_SECONDS);
    clock.advance(retryAfter);
    expect((await upload(session, 'note.txt', Buffer.from('hello'))).statusCode).toBe(200);
  });

  it(`stores no more than ${UPLOADS_PER_WINDOW} when a user's uploads arrive at once: the rest are 429`, async () => {
    // Without the user's lock this fails on PostgreSQL (TEST_DATABASE_URL), whose connections interleave the statements.
    const user = await makeUser(t.db);
    const session = await t.logIn(user);
    for (let i = 0; i < UPLOADS_PER_WINDOW - 2; i++) {
      await insertUpload(t.db, {
        uuid: crypto.randomUUID(), userId: user.id, filename: `f${i}.txt`, mimeType: 'text/plain', filesize: 1, content: Buffer.from('x'),
      }, clock.now());
    }
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => upload(session, `n${i}.txt`, Buffer.from(`note ${i}`))));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((answer) => answer.statusCode === 429)) {
      expect(refused.json()).toMatchObject({ code: 'upload.rate-limited' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    const stored = await t.db.selectFrom('uploads').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(UPLOADS_PER_WINDOW);
  });
});
