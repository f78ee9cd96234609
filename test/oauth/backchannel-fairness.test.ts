/**
 * A hostile or broken receiver delays or exhausts only its own client's
 * share of the logout-notice sender (docs/security.md "A hanging back-channel
 * receiver delays only its own client"): notices are claimed and sent per
 * client, a few at a time, so a receiver that hangs holds back no other
 * client's notice; and of an answer only the status counts — at most a few
 * KiB of its body are read, however much the receiver sends.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTICES_PER_CLIENT, NOTICES_UNDER_WAY } from '../../src/oauth/backchannel/client-shares.ts';
import { LogoutNotices } from '../../src/oauth/backchannel/logout-notices.ts';
import { claimDueNotices, enqueueLogoutNotices } from '../../src/oauth/backchannel/logout-notices.repository.ts';
import { noticeTargetPolicy } from '../../src/oauth/backchannel/notice-target.ts';
import { KeyStore } from '../../src/oauth/keys/key-store.ts';
import { NO_EVENT_LOG } from '../../src/ops/security-events.ts';
import type { TestApp } from '../helpers/app.ts';
import { FLOOD_BYTES, LogoutReceiver } from '../helpers/logout-receiver.ts';
import { buildListeningApp } from '../helpers/oauth.ts';

/** The poll interval of these tests' senders: a healthy notice waits at most this long for its claim. */
const POLL_MS = 100;
const STUCK_NOTICES = 60;

let t: TestApp & { issuer: string };
let hung: LogoutReceiver;
let healthy: LogoutReceiver;
beforeAll(async () => {
  t = await buildListeningApp();
  [hung, healthy] = await Promise.all([new LogoutReceiver().listen(), new LogoutReceiver().listen()]);
  hung.defaultAnswer = 'hang';
});
afterAll(async () => {
  await Promise.all([hung.close(), healthy.close()]);
  await t.close();
});
afterEach(async () => {
  // Whatever a test left pending must not be claimed by the next one.
  await t.db.updateTable('oauth_logout_notices').set({ state: 'abandoned', finished_at: new Date() }).where('state', '=', 'pending').execute();
});

async function queue(clientId: string, uri: string, count = 1): Promise<void> {
  const notices = Array.from({ length: count }, (_, i) => ({ clientId, backchannelLogoutUri: uri, sub: '42', sid: `${clientId}-${i}` }));
  await enqueueLogoutNotices(t.db, notices, new Date());
}

/** A sender of its own on the test app's database, with a delivery timeout of `timeoutMs`. */
function sender(timeoutMs?: number): LogoutNotices {
  return new LogoutNotices({
    db: t.db, clock: () => new Date(), issuer: t.issuer, keys: new KeyStore(t.db, t.keys, () => new Date()),
    target: noticeTargetPolicy(false), log: NO_EVENT_LOG, timeoutMs,
  });
}

describe('one client\'s hanging receiver', () => {
  it(`does not hold back another client's notice: it arrives within 2 s, behind ${STUCK_NOTICES} stuck notices`, async () => {
    const notices = t.app.logoutNotices; // the app's own sender, with the 5-second delivery timeout
    await queue('stuck-app', hung.url, STUCK_NOTICES);
    hung.mostHanging = 0;
    notices.start(POLL_MS);
    try {
      await hung.waitForRequests(NOTICES_PER_CLIENT); // the hanging client's attempts are under way
      const healthyBefore = healthy.received.length;
      await queue('healthy-app', healthy.url);
      const queuedAt = performance.now();
      await healthy.waitForRequests(healthyBefore + 1);
      expect(performance.now() - queuedAt).toBeLessThan(2000);
      expect(hung.mostHanging).toBe(NOTICES_PER_CLIENT); // its share, however many of its notices are due
    } finally {
      hung.defaultAnswer = 200;
      hung.release();
      await notices.stop();
      hung.defaultAnswer = 'hang';
    }
  }, 60_000);

  it('gets its own notices one share at a time, and every one of them is attempted', async () => {
    const impatient = sender(300);
    const before = hung.received.length;
    await queue('stuck-app', hung.url, 3 * NOTICES_PER_CLIENT);
    hung.mostHanging = 0;
    impatient.start(POLL_MS);
    try {
      await hung.waitForRequests(before + 3 * NOTICES_PER_CLIENT);
      expect(hung.mostHanging).toBe(NOTICES_PER_CLIENT);
    } finally {
      await impatient.stop();
    }
    const rows = await t.db.selectFrom('oauth_logout_notices').select(['attempts', 'last_error']).where('client_id', '=', 'stuck-app')
      .where('state', '=', 'pending').execute();
    expect(rows).toHaveLength(3 * NOTICES_PER_CLIENT);
    expect(new Set(rows.map((row) => `${row.attempts} ${row.last_error}`))).toStrictEqual(new Set(['1 no answer within 300 ms']));
  }, 60_000);
});

describe('a crowd of hanging receivers', () => {
  const CROWD = NOTICES_UNDER_WAY / NOTICES_PER_CLIENT;
  const BACKLOG = 5 * NOTICES_PER_CLIENT;

  it(`${CROWD} clients whose receivers hang take every slot; a working client's notice goes out in the first slot that frees, ahead of their backlog`, async () => {
    const impatient = sender(1000);
    const before = hung.received.length;
    for (let i = 0; i < CROWD; i += 1) await queue(`crowd-${i}`, hung.url, BACKLOG);
    impatient.start(POLL_MS);
    try {
      await hung.waitForRequests(before + NOTICES_UNDER_WAY); // every slot is taken
      const healthyBefore = healthy.received.length;
      const crowdBefore = hung.received.length;
      await queue('healthy-app', healthy.url);
      await healthy.waitForRequests(healthyBefore + 1);
      // The crowd failed lately and goes last: it gets at most the slots of a claim that began before the notice was
      // queued and the rest of the claim that takes it — not its backlog of CROWD × BACKLOG.
      expect(hung.received.length - crowdBefore).toBeLessThan(2 * NOTICES_UNDER_WAY);
    } finally {
      await impatient.stop();
    }
  }, 60_000);
});

describe('claiming per client', () => {
  it('takes at most a share of each client, the longest-waiting first, and none of a client still being sent to', async () => {
    const now = new Date(Date.now() + 1000); // every notice queued below is due then
    const lease = new Date(now.getTime() + 60_000);
    await queue('many-app', 'https://many.example.org/bc', 10);
    await queue('one-app', 'https://one.example.org/bc', 1);
    const limits = { total: 64, perClient: NOTICES_PER_CLIENT, skipClients: [], lastClients: [] };
    const claimed = await claimDueNotices(t.db, now, lease, limits);
    expect(claimed.map((n) => n.sid)).toStrictEqual(['many-app-0', 'many-app-1', 'many-app-2', 'many-app-3', 'one-app-0']);
    expect(await claimDueNotices(t.db, now, lease, { ...limits, skipClients: ['many-app'] })).toStrictEqual([]);
    await queue('one-app', 'https://one.example.org/bc', 1);
    expect((await claimDueNotices(t.db, now, lease, { ...limits, skipClients: ['many-app'] })).map((n) => n.clientId)).toStrictEqual(['one-app']);
    expect((await claimDueNotices(t.db, now, lease, { ...limits, total: 3 })).map((n) => n.sid)).toStrictEqual(['many-app-4', 'many-app-5', 'many-app-6']);
  });

  it('takes the clients whose receivers failed lately after the others', async () => {
    const now = new Date(Date.now() + 1000);
    const lease = new Date(now.getTime() + 60_000);
    await queue('failing-app', 'https://failing.example.org/bc', 3);
    await queue('working-app', 'https://working.example.org/bc', 3);
    const limits = { total: 4, perClient: NOTICES_PER_CLIENT, skipClients: [], lastClients: ['failing-app'] };
    expect((await claimDueNotices(t.db, now, lease, limits)).map((n) => n.sid))
      .toStrictEqual(['failing-app-0', 'working-app-0', 'working-app-1', 'working-app-2']);
  });
});

describe('an answer with a flood of a body', () => {
  it.each([
    [200, { state: 'sent', last_error: null }],
    [503, { state: 'pending', last_error: 'answered 503' }],
  ])('answered %i: recorded by its status, and at most a few KiB of the 200 MiB body are read', async (status, recorded) => {
    healthy.answers.push({ flood: status });
    await queue('flood-app', healthy.url);
    expect(await t.app.logoutNotices.runOnce()).toBe(1);
    const flood = healthy.floods.at(-1)!;
    await flood.closed; // the sender closed the connection
    // What the receiver got rid of before the close: the few KiB read, plus what the sockets' buffers took in.
    expect(flood.written).toBeLessThan(FLOOD_BYTES / 20);
    expect(await t.db.selectFrom('oauth_logout_notices').select(['state', 'last_error']).where('client_id', '=', 'flood-app')
      .orderBy('id', 'desc').executeTakeFirstOrThrow()).toStrictEqual(recorded);
  }, 60_000);
});
