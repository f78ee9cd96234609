import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_IP, THROTTLE_WINDOW_SECONDS } from '../src/accounts/login-throttle.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { makeUser, TEST_PASSWORD } from './helpers/factories.ts';

let t: TestApp;
beforeAll(async () => { t = await buildTestApp(); });
afterAll(() => t.close());

const login = (email: string, password: string, ip = '203.0.113.1') =>
  t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password }, remoteAddress: ip });

describe('failed-login throttling', () => {
  it('blocks an account after repeated failures, even with the right password, and tells when to retry', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) {
      expect((await login(user.email, 'wrong password', `198.51.100.${i + 1}`)).statusCode).toBe(401);
    }
    const blocked = await login(user.email, TEST_PASSWORD, '198.51.100.99');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ status: 429, code: 'auth.too-many-attempts' });
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(THROTTLE_WINDOW_SECONDS);
    expect(blocked.cookies).toEqual([]);

    t.clock.advance(THROTTLE_WINDOW_SECONDS + 1);
    expect((await login(user.email, TEST_PASSWORD, '198.51.100.99')).statusCode).toBe(200);
  });

  it('blocks an IP that tries many accounts', async () => {
    const ip = '192.0.2.77';
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
      expect((await login(`unknown${i}@example.test`, 'guess', ip)).statusCode).toBe(401);
    }
    const user = await makeUser(t.db);
    const blocked = await login(user.email, TEST_PASSWORD, ip);
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(user.email, TEST_PASSWORD, '192.0.2.78')).statusCode).toBe(200);
  });

  it('a successful login resets the account counter', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT - 1; i++) await login(user.email, 'wrong', '203.0.113.50');
    expect((await login(user.email, TEST_PASSWORD, '203.0.113.50')).statusCode).toBe(200);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT - 1; i++) {
      expect((await login(user.email, 'wrong', '203.0.113.50')).statusCode).toBe(401);
    }
  });
});
