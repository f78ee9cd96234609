/**
 * The failed-login counters in Redis (`REDIS_URL`): the same rules as in
 * PostgreSQL, shared by every instance using that Redis. Runs when
 * TEST_REDIS_URL names a Redis (.ci/run sets it); each run keeps its keys
 * under its own prefix and deletes them afterwards.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAttemptCounters } from '../../src/accounts/login-attempt-counters.redis.ts';
import { PER_SOURCE_POLICY } from '../../src/accounts/login-throttle.ts';
import { loadConfig } from '../../src/config.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { expectExactGiveBack } from '../helpers/attempt-counters.ts';
import { TestClock } from '../helpers/clock.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';

const REDIS_URL = process.env.TEST_REDIS_URL;
const prefix = `foodsharing-test:${randomUUID()}:`;
const SOURCE_FREE = PER_SOURCE_POLICY.free;

const login = (t: TestApp, email: string, password: string, ip = '203.0.113.7') =>
  t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password }, remoteAddress: ip });
const countOf = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe.skipIf(REDIS_URL === undefined)('failed-login counters in Redis', () => {
  let redis: Redis;
  let first: TestApp;
  let second: TestApp;
  const clock = new TestClock();

  beforeAll(async () => {
    redis = new Redis(REDIS_URL!);
    // Two instances, each on its own database: only Redis is shared.
    first = await buildTestApp({ clock, attempts: redisAttemptCounters(redis, prefix) });
    second = await buildTestApp({ clock, attempts: redisAttemptCounters(redis, prefix) });
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts on Redis, not in the database, and forgets a counter by its expiry', async () => {
    const user = await makeUser(first.db);
    expect((await login(first, user.email, 'wrong')).statusCode).toBe(401);
    const key = `${prefix}pair:${user.email}|203.0.113.7`;
    expect(await redis.hget(key, 'f')).toBe('1');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(23 * 3600 * 1000);
    expect(ttl).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(await first.db.selectFrom('login_throttle').selectAll().execute()).toEqual([]);
  });

  it('refuses the sixth attempt from one IP with the wait in minutes, on another instance too', async () => {
    const user = await makeUser(first.db);
    await makeUser(second.db, { email: user.email });
    for (let i = 0; i < SOURCE_FREE; i++) expect((await login(first, user.email, 'wrong', '198.51.100.1')).statusCode).toBe(401);
    const blocked = await login(second, user.email, TEST_PASSWORD, '198.51.100.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ status: 429, code: 'auth.too-many-attempts', detail: 'Too many failed logins. Try again in 1 minute.' });
    expect(Number(blocked.headers['retry-after'])).toBe(60);
    // The wait doubles: after it, one more failure is counted and the next wait is 2 minutes.
    clock.advance(60);
    expect((await login(first, user.email, 'wrong', '198.51.100.1')).statusCode).toBe(401);
    const longer = await login(second, user.email, 'wrong', '198.51.100.1');
    expect(Number(longer.headers['retry-after'])).toBe(120);
    clock.advance(120);
    expect((await login(second, user.email, TEST_PASSWORD, '198.51.100.1')).statusCode).toBe(200);
    // A successful login starts the counters again.
    expect(await redis.exists(`${prefix}pair:${user.email}|198.51.100.1`)).toBe(0);
  });

  it('of 40 attempts at once, split over two instances, exactly 5 are checked (401) and 35 refused (429)', async () => {
    const email = `nobody-${randomUUID()}@example.org`;
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => login(i % 2 === 0 ? first : second, email, 'wrong', '198.51.100.9')));
    const statuses = responses.map((r) => r.statusCode);
    expect([countOf(statuses, 401), countOf(statuses, 429)]).toEqual([SOURCE_FREE, 40 - SOURCE_FREE]);
  });

  it('an attempt given back leaves the counter as if it had never been made, unless a later attempt moved it', async () => {
    await expectExactGiveBack(redisAttemptCounters(redis, prefix), clock.now());
  });

  it('a refusal by the account counter gives the pair counter its place back', async () => {
    const email = `spread-${randomUUID()}@example.org`;
    // Ten failures from ten IPs use up the account's allowance...
    for (let i = 0; i < 10; i++) expect((await login(first, email, 'wrong', `192.0.2.${i + 1}`)).statusCode).toBe(401);
    // ...so an eleventh IP is refused, and its pair counter is left as it was: none (the give-back removes the one it made).
    expect((await login(second, email, 'wrong', '192.0.2.99')).statusCode).toBe(429);
    expect(await redis.exists(`${prefix}pair:${email}|192.0.2.99`)).toBe(0);
  });
});

describe('a Redis that cannot be reached', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Port 1 on loopback: nothing listens; every command fails within the timeout.
    t = await buildTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', DATABASE_TIMEOUT_SECONDS: '1' } });
  });
  afterAll(() => t?.close());

  it('makes a login answer 503 problem+json, changing nothing, and /ready answer 503 naming Redis, not the database', async () => {
    const user = await makeUser(t.db);
    const response = await login(t, user.email, TEST_PASSWORD);
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 503, detail: 'The service is temporarily unavailable. Please try again shortly.' });
    expect(response.cookies).toEqual([]);
    expect(await t.db.selectFrom('sessions').selectAll().execute()).toEqual([]);
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', detail: 'redis not reachable', down: ['redis'] });
  });
});

describe('REDIS_URL', () => {
  it('must be a redis: or rediss: URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', REDIS_URL: 'http://127.0.0.1:6379' }))
      .toThrow('REDIS_URL="http://127.0.0.1:6379" must be a redis: or rediss: URL');
    expect(loadConfig({ NODE_ENV: 'test', REDIS_URL: 'rediss://cache.example.org:6380' }).redisUrl).toBe('rediss://cache.example.org:6380');
  });
});
