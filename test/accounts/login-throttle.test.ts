import { describe, expect, it } from 'vitest';
import { databaseAttemptCounters, delaySeconds } from '../../src/accounts/login-attempt-counters.ts';
import { DEVICE_COOKIE } from '../../src/accounts/login-device-cookie.ts';
import { PER_ACCOUNT_POLICY, PER_SOURCE_POLICY } from '../../src/accounts/login-throttle.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';
import { expectExactGiveBack } from '../helpers/attempt-counters.ts';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

const SOURCE_FREE = PER_SOURCE_POLICY.free;
const ACCOUNT_FREE = PER_ACCOUNT_POLICY.free;

const login = (email: string, password: string, ip = '203.0.113.1', device?: string) =>
  t.app.inject({
    method: 'POST', url: '/api/user/login', payload: { email, password }, remoteAddress: ip,
    ...(device === undefined ? {} : { cookies: { [DEVICE_COOKIE]: device } }),
  });

/** Logs in once with the right password and returns the device cookie the browser got. */
async function deviceCookieOf(email: string, ip: string): Promise<string> {
  const response = await login(email, TEST_PASSWORD, ip);
  expect(response.statusCode).toBe(200);
  const cookie = response.cookies.find((c) => c.name === DEVICE_COOKIE)!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
  return cookie.value;
}

const statusesOf = async (requests: Promise<{ statusCode: number }>[]) => (await Promise.all(requests)).map((r) => r.statusCode);
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('failed-login throttling per (account, IP), with progressive delays', () => {
  it('refuses the sixth attempt from one IP, even with the right password, and says the wait in minutes', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < SOURCE_FREE; i++) expect((await login(user.email, 'wrong', '198.51.100.1')).statusCode).toBe(401);
    const blocked = await login(user.email, TEST_PASSWORD, '198.51.100.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ status: 429, code: 'auth.too-many-attempts', detail: 'Too many failed logins. Try again in 1 minute.' });
    expect(Number(blocked.headers['retry-after'])).toBe(60);
    expect(blocked.cookies).toEqual([]);
    // Another IP is another pair, and the account-wide allowance is not used up.
    expect((await login(user.email, TEST_PASSWORD, '198.51.100.2')).statusCode).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 as one IP (a host there picks any of them at will)', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < SOURCE_FREE; i++) expect((await login(user.email, 'wrong', `2001:db8:5:6::${i + 1}`)).statusCode).toBe(401);
    expect((await login(user.email, TEST_PASSWORD, '2001:db8:5:6:abcd::1')).statusCode).toBe(429);
    expect((await login(user.email, TEST_PASSWORD, '2001:db8:5:7::1')).statusCode).toBe(200);
  });

  it('doubles the wait with every further failure: 1, 2, 4, 8 minutes, then at most 15', async () => {
    expect([5, 6, 7, 8, 9, 10, 20].map((n) => delaySeconds(PER_SOURCE_POLICY, n))).toEqual([60, 120, 240, 480, 900, 900, 900]);
    const user = await makeUser(t.db);
    const ip = '198.51.100.10';
    for (let i = 0; i < SOURCE_FREE; i++) await login(user.email, 'wrong', ip);
    for (const minutes of [1, 2, 4]) {
      const refused = await login(user.email, 'wrong', ip);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBe(minutes * 60);
      expect(refused.json().detail).toBe(`Too many failed logins. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`);
      t.clock.advance(minutes * 60 - 2);
      expect((await login(user.email, 'wrong', ip)).statusCode).toBe(429);
      t.clock.advance(2);
      expect((await login(user.email, 'wrong', ip)).statusCode).toBe(401);
    }
  });

  it('a successful login starts the counters again', async () => {
    const user = await makeUser(t.db);
    const ip = '203.0.113.50';
    for (let i = 0; i < SOURCE_FREE - 1; i++) await login(user.email, 'wrong', ip);
    expect((await login(user.email, TEST_PASSWORD, ip)).statusCode).toBe(200);
    for (let i = 0; i < SOURCE_FREE; i++) expect((await login(user.email, 'wrong', ip)).statusCode).toBe(401);
  });

  it('keeps no counter per IP alone: failures on many accounts from one IP lock nobody else behind it out', async () => {
    const ip = '192.0.2.77';
    await statusesOf(Array.from({ length: 40 }, (_, i) => login(`unknown${i}@example.test`, 'guess', ip)));
    const user = await makeUser(t.db);
    expect((await login(user.email, TEST_PASSWORD, ip)).statusCode).toBe(200);
  });
});

describe('the account-wide limit and device cookies', () => {
  it('an attacker on other IPs slows the account down for new browsers, but not for the owner\'s device-cookie browser', async () => {
    const user = await makeUser(t.db);
    const device = await deviceCookieOf(user.email, '203.0.113.7');
    for (let i = 0; i < ACCOUNT_FREE; i++) expect((await login(user.email, 'guess', `192.0.2.${100 + i}`)).statusCode).toBe(401);
    const newBrowser = await login(user.email, TEST_PASSWORD, '203.0.113.7');
    expect(newBrowser.statusCode).toBe(429);
    expect(newBrowser.json().detail).toBe('Too many failed logins. Try again in 1 minute.');
    // The owner's browser, from its own IP and even from one of the attacker's.
    expect((await login(user.email, TEST_PASSWORD, '203.0.113.7', device)).statusCode).toBe(200);
    expect((await login(user.email, TEST_PASSWORD, '192.0.2.100', device)).statusCode).toBe(200);
    // Its success does not hand the attacker a fresh allowance.
    expect((await login(user.email, 'guess', '192.0.2.200')).statusCode).toBe(429);
  });

  it('a device-cookie browser has its own counter, which the account and other browsers do not share', async () => {
    const user = await makeUser(t.db);
    const device = await deviceCookieOf(user.email, '203.0.113.8');
    for (let i = 0; i < SOURCE_FREE; i++) expect((await login(user.email, 'wrong', '203.0.113.8', device)).statusCode).toBe(401);
    expect((await login(user.email, TEST_PASSWORD, '203.0.113.8', device)).statusCode).toBe(429);
    // Its failures were not counted on the (account, IP) pair: a browser without the cookie on that IP still may.
    expect((await login(user.email, TEST_PASSWORD, '203.0.113.8')).statusCode).toBe(200);
  });

  it('a device cookie of another account, or a forged one, is no device cookie', async () => {
    const owner = await makeUser(t.db);
    const target = await makeUser(t.db);
    const ownDevice = await deviceCookieOf(owner.email, '203.0.113.9');
    const forged = `${'A'.repeat(22)}.${'B'.repeat(43)}`;
    for (let i = 0; i < ACCOUNT_FREE; i++) await login(target.email, 'guess', `192.0.2.${150 + i}`);
    expect((await login(target.email, TEST_PASSWORD, '203.0.113.9', ownDevice)).statusCode).toBe(429);
    expect((await login(target.email, TEST_PASSWORD, '203.0.113.9', forged)).statusCode).toBe(429);
    expect((await login(target.email, TEST_PASSWORD, '203.0.113.9', 'garbage~;%')).statusCode).toBe(429);
  });

  it('a browser keeps device entries for several accounts', async () => {
    const first = await makeUser(t.db);
    const second = await makeUser(t.db);
    const afterFirst = await deviceCookieOf(first.email, '203.0.113.11');
    const response = await login(second.email, TEST_PASSWORD, '203.0.113.11', afterFirst);
    const both = response.cookies.find((c) => c.name === DEVICE_COOKIE)!.value;
    expect(both.split('~')).toHaveLength(2);
    for (let i = 0; i < ACCOUNT_FREE; i++) await login(first.email, 'guess', `192.0.2.${170 + i}`);
    expect((await login(first.email, TEST_PASSWORD, '203.0.113.11', both)).statusCode).toBe(200);
  });
});

describe('parallel attempts are counted before any password is checked', () => {
  it('of 40 at once from one IP on one account, 5 are checked (401) and 35 refused (429)', async () => {
    const user = await makeUser(t.db);
    const ip = '198.51.100.200';
    const responses = await Promise.all(Array.from({ length: 40 }, () => login(user.email, 'wrong password', ip)));
    const statuses = responses.map((r) => r.statusCode);
    expect(count(statuses, 401)).toBe(SOURCE_FREE);
    expect(count(statuses, 429)).toBe(40 - SOURCE_FREE);
    for (const response of responses.filter((r) => r.statusCode === 429)) {
      expect(response.json()).toMatchObject({ status: 429, code: 'auth.too-many-attempts' });
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Refused attempts are not failures: both counters hold the 5 checked ones.
    const rows = await t.db.selectFrom('login_throttle').select(['key', 'failures'])
      .where('key', 'in', [`account:${user.email}`, `pair:${user.email}|${ip}`]).orderBy('key').execute();
    expect(rows).toEqual([{ key: `account:${user.email}`, failures: 5 }, { key: `pair:${user.email}|${ip}`, failures: 5 }]);
  });

  it('of 40 at once from 40 IPs on one account, 10 are checked (401) and 30 refused (429)', async () => {
    const user = await makeUser(t.db);
    const statuses = await statusesOf(Array.from({ length: 40 }, (_, i) => login(user.email, 'guess', `100.64.0.${i + 1}`)));
    expect(count(statuses, 401)).toBe(ACCOUNT_FREE);
    expect(count(statuses, 429)).toBe(40 - ACCOUNT_FREE);
  });

  it('of 40 at once with one device cookie, 5 are checked (401) and 35 refused (429)', async () => {
    const user = await makeUser(t.db);
    const device = await deviceCookieOf(user.email, '203.0.113.12');
    const statuses = await statusesOf(Array.from({ length: 40 }, () => login(user.email, 'wrong', '203.0.113.12', device)));
    expect(count(statuses, 401)).toBe(SOURCE_FREE);
    expect(count(statuses, 429)).toBe(40 - SOURCE_FREE);
  });
});

describe('the login page', () => {
  async function postLoginPage(email: string, password: string, ip: string, language = 'de', device?: string) {
    const page = await t.app.inject({ url: '/login' });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    return t.app.inject({
      method: 'POST', url: '/login', remoteAddress: ip,
      payload: new URLSearchParams({ email, password, csrf_token: csrf }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': language },
      cookies: { CSRF_TOKEN: csrf, ...(device === undefined ? {} : { [DEVICE_COOKIE]: device }) },
    });
  }

  it('answers a throttled attempt with 429, Retry-After and the wait in minutes (German and English), logging nobody in', async () => {
    const user = await makeUser(t.db);
    for (let i = 0; i < SOURCE_FREE + 1; i++) await login(user.email, 'wrong', '198.51.100.150');
    t.clock.advance(60);
    await login(user.email, 'wrong', '198.51.100.150');
    const german = await postLoginPage(user.email, TEST_PASSWORD, '198.51.100.150');
    expect(german.statusCode).toBe(429);
    expect(german.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(german.headers['retry-after'])).toBe(120);
    expect(german.body).toContain('Zu viele fehlgeschlagene Anmeldungen. Bitte versuche es in 2 Minuten erneut.');
    expect(german.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    const english = await postLoginPage(user.email, TEST_PASSWORD, '198.51.100.150', 'en');
    expect(english.body).toContain('Too many failed logins. Please try again in 2 minutes.');
    t.clock.advance(60);
    const oneMinute = await postLoginPage(user.email, TEST_PASSWORD, '198.51.100.150');
    expect(oneMinute.body).toContain('Bitte versuche es in einer Minute erneut.');
  });

  it('sets a device cookie on login and lets it past the account-wide limit', async () => {
    const user = await makeUser(t.db);
    const first = await postLoginPage(user.email, TEST_PASSWORD, '203.0.113.20');
    expect(first.statusCode).toBe(303);
    const device = first.cookies.find((c) => c.name === DEVICE_COOKIE)!.value;
    for (let i = 0; i < ACCOUNT_FREE; i++) await login(user.email, 'guess', `192.0.2.${220 + i}`);
    expect((await postLoginPage(user.email, TEST_PASSWORD, '203.0.113.20')).statusCode).toBe(429);
    expect((await postLoginPage(user.email, TEST_PASSWORD, '203.0.113.20', 'de', device)).statusCode).toBe(303);
  });
});

describe('an attempt given back (a right device code, or one refused by another counter)', () => {
  it('leaves the counter in the database as if it had never been made, unless a later attempt moved it', async () => {
    await expectExactGiveBack(databaseAttemptCounters(t.db), t.clock.now());
  });
});
