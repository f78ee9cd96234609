/**
 * Sending logout notices (Back-Channel Logout 1.0 §2.5–§2.8): a receiver on
 * loopback verifies each logout token against our JWKS with jose; the OP-side
 * negative cases of the back-channel test plan — the receiver answering 400
 * or 5xx, hanging, unreachable — are retried with pauses, a bounded number of
 * times, then abandoned; production refuses loopback and private targets
 * before any connection. The worker is driven with runOnce() and a frozen clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogoutNotices, MAX_ATTEMPTS, RETRY_DELAYS_SECONDS } from '../../src/oauth/backchannel/logout-notices.ts';
import { enqueueLogoutNotices } from '../../src/oauth/backchannel/logout-notices.repository.ts';
import { noticeTargetPolicy } from '../../src/oauth/backchannel/notice-target.ts';
import { KeyStore } from '../../src/oauth/keys/key-store.ts';
import { purgeExpiredOAuthRows } from '../../src/oauth/oauth.purge.ts';
import { NO_EVENT_LOG } from '../../src/ops/security-events.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { LogoutReceiver, verifyLogoutToken } from '../helpers/logout-receiver.ts';
import { buildListeningApp, freePort } from '../helpers/oauth.ts';

const METRICS_TOKEN = 'metrics-token-for-tests';
const lines: string[] = [];
const clock = new FrozenClock(new Date());
let t: TestApp & { issuer: string };
let receiver: LogoutReceiver;
beforeAll(async () => {
  t = await buildListeningApp({ clock, env: { LOG_LEVEL: 'info', METRICS_TOKEN }, logStream: { write: (line) => { lines.push(line); } } });
  receiver = await new LogoutReceiver().listen();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function queue(uri = receiver.url, sid: string | null = 'sid-1', db = t.db): Promise<number> {
  await enqueueLogoutNotices(db, [{ clientId: 'wiki', backchannelLogoutUri: uri, sub: '42', sid }], clock.now());
  const row = await db.selectFrom('oauth_logout_notices').select('id').orderBy('id', 'desc').limit(1).executeTakeFirstOrThrow();
  return row.id;
}

const notice = (id: number, db = t.db) => db.selectFrom('oauth_logout_notices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const eventsNamed = (name: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.event === name);

describe('delivering a logout notice', () => {
  it('POSTs a logout token that verifies against the JWKS (typ, iss, aud, events, sub, sid, two minutes, no nonce), once', async () => {
    const id = await queue();
    const before = receiver.received.length;
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    const [request] = receiver.received.slice(before);
    expect(request).toMatchObject({ method: 'POST', path: '/backchannel-logout', contentType: 'application/x-www-form-urlencoded' });
    const payload = await verifyLogoutToken(request!.logoutToken, t.issuer, 'wiki', clock.now());
    expect(payload).toStrictEqual({
      iss: t.issuer, aud: 'wiki', sub: '42', sid: 'sid-1', iat: Math.floor(clock.now().getTime() / 1000),
      exp: Math.floor(clock.now().getTime() / 1000) + 120, jti: expect.any(String),
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    });
    expect(await notice(id)).toMatchObject({ state: 'sent', attempts: 1, last_error: null, finished_at: clock.now(), last_attempt_at: clock.now() });
    expect(eventsNamed('oauth.backchannel_logout.sent').at(-1)).toMatchObject({ clientId: 'wiki', userId: 42, noticeId: id, attempts: 1 });

    expect(await t.app.logoutNotices.runOnce()).toBe(0);
    clock.advance(3600);
    expect(await t.app.logoutNotices.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(before + 1);
  });

  it('a notice without a sid carries sub only', async () => {
    await queue(receiver.url, null);
    const before = receiver.received.length;
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    const payload = await verifyLogoutToken(receiver.received[before]!.logoutToken, t.issuer, 'wiki', clock.now());
    expect(payload.sub).toBe('42');
    expect(payload).not.toHaveProperty('sid');
  });

  it('retries a receiver answering 400, then 500s, after growing pauses; abandons after the last attempt', async () => {
    receiver.answers.push(400, 500, 500, 500, 500);
    const id = await queue();
    const before = receiver.received.length;
    const jtis = new Set<unknown>();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      expect(await t.app.logoutNotices.runOnce()).toBe(1);
      expect(receiver.received).toHaveLength(before + attempt);
      jtis.add((await verifyLogoutToken(receiver.received.at(-1)!.logoutToken, t.issuer, 'wiki', clock.now())).jti);
      const row = await notice(id);
      expect(row).toMatchObject({ attempts: attempt, last_error: attempt === 1 ? 'answered 400' : 'answered 500', last_attempt_at: clock.now() });
      if (attempt === MAX_ATTEMPTS) break;
      const pause = RETRY_DELAYS_SECONDS[attempt - 1]!;
      expect(row).toMatchObject({ state: 'pending', finished_at: null, next_attempt_at: new Date(clock.now().getTime() + pause * 1000) });
      clock.advance(pause - 1);
      expect(await t.app.logoutNotices.runOnce()).toBe(0);
      clock.advance(1);
    }
    expect(await notice(id)).toMatchObject({ state: 'abandoned', attempts: 5, finished_at: clock.now(), last_error: 'answered 500' });
    expect(eventsNamed('oauth.backchannel_logout.abandoned').at(-1)).toMatchObject({
      clientId: 'wiki', userId: 42, noticeId: id, attempts: 5, error: 'answered 500', level: 40,
    });
    expect(jtis.size).toBe(5);

    clock.advance(24 * 3600);
    expect(await t.app.logoutNotices.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(before + 5);
  });

  it('a retry that is answered 204 counts as delivered', async () => {
    receiver.answers.push(503, 204);
    const id = await queue();
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'answered 503' });
    clock.advance(RETRY_DELAYS_SECONDS[0]);
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'sent', attempts: 2, last_error: null });
  });

  it('follows no redirect: a 302 is a failed attempt', async () => {
    receiver.answers.push(302);
    const id = await queue();
    const before = receiver.received.length;
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'answered 302' });
    expect(receiver.received).toHaveLength(before + 1);
    clock.advance(RETRY_DELAYS_SECONDS[0]);
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
  });

  it('gives a receiver that does not answer a short deadline, then retries', async () => {
    const impatient = new LogoutNotices({
      db: t.db, clock: clock.now, issuer: t.issuer, keys: new KeyStore(t.db, t.keys, clock.now),
      target: noticeTargetPolicy(false), log: NO_EVENT_LOG, timeoutMs: 200,
    });
    receiver.answers.push('hang');
    const id = await queue();
    expect(await impatient.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'no answer within 200 ms' });
    receiver.release();
    clock.advance(RETRY_DELAYS_SECONDS[0]);
    expect(await impatient.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('retries an unreachable receiver', async () => {
    const id = await queue(`http://127.0.0.1:${await freePort()}/backchannel-logout`);
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    expect(await notice(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'not reachable: ECONNREFUSED' });
    await t.db.updateTable('oauth_logout_notices').set({ state: 'abandoned', finished_at: clock.now() }).where('id', '=', id).execute();
  });
});

describe('what operators see', () => {
  it('GET /metrics counts this instance\'s attempts by outcome', async () => {
    const response = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    const { sent, retried, abandoned } = t.app.logoutNotices.counts;
    expect([sent, retried, abandoned]).toStrictEqual([4, 7, 1]);
    expect(response.body).toContain(`oauth_logout_notices_total{outcome="sent"} ${sent}\n`);
    expect(response.body).toContain(`oauth_logout_notices_total{outcome="retried"} ${retried}\n`);
    expect(response.body).toContain(`oauth_logout_notices_total{outcome="abandoned"} ${abandoned}\n`);
  });

  it('finished notices are purged a week after they finished; pending ones stay', async () => {
    const pending = await queue();
    const finished = await t.db.selectFrom('oauth_logout_notices').select(['id', 'finished_at']).where('state', '<>', 'pending').orderBy('id').execute();
    const last = Math.max(...finished.map((row) => row.finished_at!.getTime()));
    clock.set(new Date(last + 7 * 24 * 3600 * 1000 - 1000));
    await purgeExpiredOAuthRows(t.db, clock.now);
    const weekOld = clock.now().getTime() - 7 * 24 * 3600 * 1000;
    expect(await t.db.selectFrom('oauth_logout_notices').select('id').where('state', '<>', 'pending').orderBy('id').execute())
      .toStrictEqual(finished.filter((row) => row.finished_at!.getTime() >= weekOld).map(({ id }) => ({ id })));
    clock.advance(2);
    await purgeExpiredOAuthRows(t.db, clock.now);
    expect(await t.db.selectFrom('oauth_logout_notices').select(['id', 'state']).execute()).toStrictEqual([{ id: pending, state: 'pending' }]);
  });
});

describe('in production', () => {
  const PRODUCTION = {
    NODE_ENV: 'production', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://id.example.org',
    // Required by the configuration; the test app uses its own test database instead.
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused', MAIL: 'off',
  };
  let production: TestApp;
  beforeAll(async () => {
    production = await buildTestApp({ env: PRODUCTION, clock });
  });
  afterAll(async () => {
    await production.close();
  });

  it.each([
    ['plain http, even on loopback', () => receiver.url, 'refused: not https'],
    ['an IP literal that is not public', () => receiver.url.replace('http:', 'https:'), 'refused: 127.0.0.1 is not an allowed address'],
    ['a name that resolves to loopback (checked after DNS resolution)', () => receiver.url.replace('http://127.0.0.1', 'https://localhost'),
      /^refused: localhost resolves to (127\.0\.0\.1|::1), not an allowed address$/],
  ])('refuses %s at once: abandoned after one attempt, no request reaches the receiver', async (_name, uri, error) => {
    const id = await queue(uri(), 'sid-1', production.db);
    const before = receiver.received.length;
    expect(await production.app.logoutNotices.runOnce()).toBe(1);
    expect(await notice(id, production.db)).toMatchObject({ state: 'abandoned', attempts: 1, last_error: expect.stringMatching(error) });
    expect(receiver.received).toHaveLength(before);
  });
});
