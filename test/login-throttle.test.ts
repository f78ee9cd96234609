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

  it('counts parallel attempts before checking a password: of 40 at once on one account, 5 are checked (401), 35 refused (429)', async () => {
    const user = await makeUser(t.db);
    const ip = '198.51.100.200';
    const responses = await Promise.all(Array.from({ length: 40 }, () => login(user.email, 'wrong password', ip)));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES_PER_ACCOUNT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - MAX_FAILURES_PER_ACCOUNT);
    for (const response of responses.filter((r) => r.statusCode === 429)) {
      expect(response.json()).toMatchObject({ status: 429, code: 'auth.too-many-attempts' });
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Refused attempts are not failures: both counters hold the 5 checked ones.
    const rows = await t.db.selectFrom('login_throttle').select(['key', 'failures'])
      .where('key', 'in', [`account:${user.email}`, `ip:${ip}`]).orderBy('key').execute();
    expect(rows).toEqual([{ key: `account:${user.email}`, failures: 5 }, { key: `ip:${ip}`, failures: 5 }]);
    expect((await login(user.email, TEST_PASSWORD, '198.51.100.201')).statusCode).toBe(429);
  });

  it('counts parallel attempts per IP: of 40 at once on different accounts, 30 are checked (401), 10 refused (429)', async () => {
    const ip = '192.0.2.200';
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => login(`parallel${i}@example.test`, 'guess', ip)));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_FAILURES_PER_IP);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - MAX_FAILURES_PER_IP);
  });

  it('a successful login gives its place on the IP counter back', async () => {
    const ip = '203.0.113.60';
    const user = await makeUser(t.db);
    for (let i = 0; i < 3; i++) expect((await login(user.email, TEST_PASSWORD, ip)).statusCode).toBe(200);
    expect(await t.db.selectFrom('login_throttle').select('failures').where('key', '=', `ip:${ip}`).executeTakeFirst()).toEqual({ failures: 0 });
  });

  it('the login page answers a blocked account with 429, Retry-After and the message, and logs nobody in', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) await login(user.email, 'wrong password', '198.51.100.150');
    const page = await t.app.inject({ url: '/login' });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const response = await t.app.inject({
      method: 'POST', url: '/login', remoteAddress: '198.51.100.151',
      payload: new URLSearchParams({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `CSRF_TOKEN=${csrf}` },
    });
    expect(response.statusCode).toBe(429);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(THROTTLE_WINDOW_SECONDS);
    expect(response.body).toContain(`Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in ${retryAfter} Sekunden erneut.`);
    expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
  });
});
