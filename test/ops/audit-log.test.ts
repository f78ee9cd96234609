/**
 * The audit log (ops/audit/): security events from real actions are stored
 * in `security_events` with the member, client and address in their columns;
 * a request refused before any event stores nothing; the retention purge
 * deletes only rows older than AUDIT_RETENTION_DAYS, in bounded batches.
 */
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { PER_SOURCE_POLICY } from '../../src/accounts/login-throttle.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { EventRecorder } from '../../src/ops/audit/event-recorder.ts';
import { purgeOldSecurityEvents } from '../../src/ops/audit/audit-purge.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';
import { logInAs, type TestSession } from '../helpers/session.ts';

/** Standing still: the stored time is exactly the clock's. */
const t = useTestApp({ clock: new FrozenClock(new Date()) });
let user: TestUser;
let session: TestSession;
let client: { clientId: string; secret: string };

beforeAll(async () => {
  user = await makeUser(t.db);
  session = await logInAs(t.app, user);
  client = (await makeClient(t)) as { clientId: string; secret: string };
});

beforeEach(async () => {
  await t.app.securityEvents.settled();
  await t.db.deleteFrom('security_events').execute();
});

async function stored() {
  await t.app.securityEvents.settled();
  return t.db.selectFrom('security_events').select(['event', 'level', 'user_id', 'client_id', 'ip', 'details', 'occurred_at']).orderBy('id').execute();
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

describe('security events are stored', () => {
  test('a failed client authentication at /oauth/token: warn, the client, the address, the reason', async () => {
    const response = await t.app.inject({
      method: 'POST', url: '/oauth/token', remoteAddress: '192.0.2.7', headers: form,
      payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: client.clientId, client_secret: 'not-the-secret-0123456789' }).toString(),
    });
    expect(response.statusCode).toBe(401);
    expect(await stored()).toEqual([{
      event: 'oauth.client.authentication_failed', level: 'warn', user_id: null, client_id: client.clientId, ip: '192.0.2.7',
      details: { reason: 'wrong client secret' }, occurred_at: t.clock.now(),
    }]);
  });

  test('a consent revocation at /settings/apps: info, the member, the client and the request\'s address', async () => {
    const row = await findClientRow(t.db, client.clientId);
    await rememberConsent(t.db, user.id, row!.id, ['openid'], t.clock.now());
    const response = await t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', remoteAddress: '203.0.113.5', headers: { ...form, cookie: session.cookie },
      payload: new URLSearchParams({ client_id: client.clientId, csrf_token: session.csrfToken }).toString(),
    });
    expect(response.statusCode).toBe(303);
    expect(await stored()).toEqual([{
      event: 'oauth.consent.revoked', level: 'info', user_id: user.id, client_id: client.clientId, ip: '203.0.113.5', details: {}, occurred_at: t.clock.now(),
    }]);
  });

  test('failed logins, then a lockout: warn, the member guessed at, the reason, the locking counter and the wait', async () => {
    const target = await makeUser(t.db);
    const login = (email: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email, password }, remoteAddress: '198.51.100.9' });
    expect((await login('nobody-here@example.test', 'wrong-password-guess')).statusCode).toBe(401);
    // The counter is the account's from this address: the unknown email counts on its own.
    for (let i = 0; i < PER_SOURCE_POLICY.free; i++) expect((await login(target.email, 'wrong-password-guess')).statusCode).toBe(401);
    const failed = (userId: number | null, reason: string) => ({
      event: 'account.login.failed', level: 'warn', user_id: userId, client_id: null, ip: '198.51.100.9', details: { reason }, occurred_at: t.clock.now(),
    });
    expect(await stored()).toEqual([
      failed(null, 'unknown-email'), ...Array.from({ length: PER_SOURCE_POLICY.free }, () => failed(target.id, 'wrong-password')),
    ]);
    await t.db.deleteFrom('security_events').execute();
    expect((await login(target.email, TEST_PASSWORD)).statusCode).toBe(429);
    const rows = await stored();
    expect(rows).toEqual([expect.objectContaining({
      event: 'account.login.locked', level: 'warn', user_id: target.id, client_id: null, ip: '198.51.100.9', details: { lockedBy: 'source', retryAfterSeconds: 60 },
    })]);
    expect(JSON.stringify(rows)).not.toContain(target.email);
  });

  test('a password login and a logout, by the page and by the API: info, the member, how they signed in, the grants revoked', async () => {
    const member = await makeUser(t.db);
    const api = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: member.email, password: TEST_PASSWORD }, remoteAddress: '192.0.2.20' });
    expect(api.statusCode).toBe(200);
    const cookie = [api.headers['set-cookie']].flat().map((line) => line!.split(';')[0]).join('; ');
    const out = await t.app.inject({ method: 'POST', url: '/api/user/logout', remoteAddress: '192.0.2.20', headers: { cookie, 'x-csrf-token': api.json().csrfToken } });
    expect(out.statusCode).toBe(204);
    const page = await logInAs(t.app, member);
    const pageOut = await t.app.inject({
      method: 'POST', url: '/logout', remoteAddress: '192.0.2.21', headers: { ...form, cookie: page.cookie }, payload: `csrf_token=${page.csrfToken}`,
    });
    expect(pageOut.statusCode).toBe(303);
    const row = (event: string, ip: string, details: object) => ({ event, level: 'info', user_id: member.id, client_id: null, ip, details, occurred_at: t.clock.now() });
    expect(await stored()).toEqual([
      row('account.login.succeeded', '192.0.2.20', { amr: ['pwd'] }),
      row('account.logout', '192.0.2.20', { grantsRevoked: 0 }),
      row('account.login.succeeded', '127.0.0.1', { amr: ['pwd'] }),
      row('account.logout', '192.0.2.21', { grantsRevoked: 0 }),
    ]);
    // Logging out without a session records nothing.
    expect((await t.app.inject({ method: 'POST', url: '/logout', headers: form, payload: '' })).statusCode).toBe(303);
    expect(await stored()).toHaveLength(4);
  });

  test('a request refused before any event (no CSRF token) stores nothing', async () => {
    const response = await t.app.inject({
      method: 'POST', url: '/settings/apps/revoke', headers: { ...form, cookie: session.cookie }, payload: `client_id=${client.clientId}`,
    });
    expect(response.statusCode).toBe(403);
    expect(await stored()).toEqual([]);
  });
});

describe('retention', () => {
  const DAY = 24 * 60 * 60 * 1000;

  async function insertAged(ages: readonly number[]) {
    const now = t.clock.now().getTime();
    await t.db.insertInto('security_events').values(ages.map((days, i) => ({
      occurred_at: new Date(now - days * DAY), event: 'oauth.client.deleted', level: 'info' as const, user_id: null, client_id: `c${i}`, ip: null, details: '{}',
    }))).execute();
  }

  test('deletes only the events older than the retention', async () => {
    await insertAged([91, 90.5, 89.9, 10, 0]);
    expect(await purgeOldSecurityEvents(t.db, t.clock.now(), 90)).toBe(2);
    expect((await t.db.selectFrom('security_events').select('client_id').orderBy('id').execute()).map((r) => r.client_id)).toEqual(['c2', 'c3', 'c4']);
  });

  test('a backlog goes in batches of the given size until none is left', async () => {
    await insertAged([...Array.from({ length: 25 }, () => 100), 1]);
    expect(await purgeOldSecurityEvents(t.db, t.clock.now(), 90, 10)).toBe(25);
    expect(await t.db.selectFrom('security_events').select('client_id').execute()).toEqual([{ client_id: 'c25' }]);
  });
});

describe('a failed write', () => {
  test('is reported with the number of rows lost and never thrown at the emitter', async () => {
    const failures: [string, number][] = [];
    const recorder = new EventRecorder(() => Promise.reject(new Error('database down')), t.clock.now, (error, rows) => {
      failures.push([(error as Error).message, rows]);
    });
    expect(() => {
      recorder.record({ event: 'oauth.client.deleted', clientId: 'a' });
      recorder.record({ event: 'oauth.client.deleted', clientId: 'b' });
    }).not.toThrow();
    await recorder.settled();
    expect(failures).toEqual([['database down', 2]]);
  });
});
