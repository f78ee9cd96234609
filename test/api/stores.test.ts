/**
 * Store wall posts, pickup sign-ups and store managers (SPEC-API): every
 * listed status code, the domain rules, what is and is not written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makePickupSlot, makeStore, makeWallPost } from '../helpers/api-factories.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';
import type { TestSession } from '../helpers/session.ts';

const t = useTestApp();
let region: number;
let otherRegion: number;
const users: Record<string, TestUser> = {};
const sessions: Record<string, TestSession> = {};
let storeId: number;

const DAY = 24 * 3600;

beforeAll(async () => {
  region = await makeRegion(t.db);
  otherRegion = await makeRegion(t.db);
  const specs = {
    member: { role: 'foodsaver' }, member2: { role: 'foodsaver' }, standby: { role: 'foodsaver' },
    unverified: { role: 'foodsaver', verified: false }, manager: { role: 'store-manager' }, manager2: { role: 'store-manager' },
    outsider: { role: 'store-manager' }, ambassador: { role: 'ambassador', ambassadorOf: [region] },
    foreignAmbassador: { role: 'ambassador', ambassadorOf: [otherRegion] }, orga: { role: 'orga' },
    candidate: { role: 'store-manager' }, foodsaverCandidate: { role: 'foodsaver' },
  } as const;
  for (const [name, spec] of Object.entries(specs)) {
    users[name] = await makeUser(t.db, { regionIds: [region], ...spec, ambassadorOf: 'ambassadorOf' in spec ? [...spec.ambassadorOf] : [] });
    sessions[name] = await t.logIn(users[name]!);
  }
  storeId = await makeStore(t.db, region, {
    member: [users.member!.id, users.member2!.id, users.unverified!.id], standby: [users.standby!.id],
    manager: [users.manager!.id],
  });
});

const id = (name: string) => users[name]!.id;

/** Sessions expire: after moving the clock by weeks, everyone logs in again. */
async function logInEveryoneAgain(): Promise<void> {
  for (const name of Object.keys(users)) sessions[name] = await t.logIn(users[name]!);
}
const storeLog = () => t.db.selectFrom('store_log').selectAll().orderBy('id').execute();

describe('GET /api/stores/{storeId}/posts', () => {
  it('answers 401 when logged out', async () => {
    expectProblem(await t.call('GET', `/api/stores/${storeId}/posts`), 401, 'auth.unauthenticated');
  });

  it('gives members, managers, orga and the region\'s ambassadors the 50 newest posts, newest first, in the seed\'s shape', async () => {
    const wallStore = await makeStore(t.db, region, { member: [id('member')], manager: [id('manager')] });
    const base = t.clock.now().getTime() - 1000 * 60_000;
    for (let i = 0; i < 55; i++) await makeWallPost(t.db, wallStore, id(i % 2 ? 'member' : 'manager'), new Date(base + i * 60_000), `Post ${i}`);
    for (const who of ['member', 'manager', 'orga', 'ambassador']) {
      const response = await t.call('GET', `/api/stores/${wallStore}/posts`, sessions[who]);
      expect(response.statusCode, who).toBe(200);
      const posts = response.json() as Array<Record<string, any>>;
      expect(posts).toHaveLength(50);
      expect(posts[0]!.text).toBe('Post 54');
      expect(posts[49]!.text).toBe('Post 5');
    }
    const [first] = (await t.call('GET', `/api/stores/${wallStore}/posts`, sessions.member)).json() as Array<Record<string, any>>;
    expectKeys(first, ['id', 'foodsaverId', 'text', 'author', 'createdAt']);
    expectKeys(first!.author, ['id', 'name', 'avatar', 'sleepStatus']);
    expect(first).toMatchObject({ foodsaverId: id('manager'), author: { id: id('manager'), avatar: null, sleepStatus: 0 } });
    expect(first!.createdAt).toBe(new Date(base + 54 * 60_000).toISOString());
  });

  it('answers 403 to standby members, outsiders and ambassadors of other regions', async () => {
    for (const who of ['standby', 'outsider', 'foreignAmbassador']) {
      expectProblem(await t.call('GET', `/api/stores/${storeId}/posts`, sessions[who]), 403, 'store.forbidden');
    }
  });

  it('answers 404 for an unknown store and 400/404 for malformed ids, never 500', async () => {
    expectProblem(await t.call('GET', '/api/stores/99999/posts', sessions.orga), 404, 'store.not-found');
    for (const bad of BAD_IDS) {
      const response = await t.call('GET', `/api/stores/${bad}/posts`, sessions.orga);
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});

describe('DELETE /api/stores/{storeId}/posts/{postId}', () => {
  const url = (postId: number, store = storeId) => `/api/stores/${store}/posts/${postId}`;
  const postExists = async (postId: number) =>
    (await t.db.selectFrom('store_wall_posts').select('id').where('id', '=', postId).executeTakeFirst()) !== undefined;

  it('answers 401 when logged out and 403 without the CSRF token, deleting nothing', async () => {
    const postId = await makeWallPost(t.db, storeId, id('member'), t.clock.now());
    expectProblem(await t.call('DELETE', url(postId)), 401);
    const noToken = await t.app.inject({ method: 'DELETE', url: url(postId), headers: { cookie: sessions.member!.cookie } });
    expectProblem(noToken, 403, 'auth.csrf-invalid');
    expect(await postExists(postId)).toBe(true);
  });

  it('lets the author delete their own post and writes a store-log entry', async () => {
    const createdAt = new Date(t.clock.now().getTime() - 60_000);
    const postId = await makeWallPost(t.db, storeId, id('member'), createdAt, 'Bin heute später');
    const before = (await storeLog()).length;
    const response = await t.call('DELETE', url(postId), sessions.member);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await postExists(postId)).toBe(false);
    const log = (await storeLog()).slice(before);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      store_id: storeId, action: 'wall-post-deleted', acting_user_id: id('member'), affected_user_id: id('member'),
      content: 'Bin heute später', date_reference: createdAt,
    });
  });

  it('lets a store manager delete other people\'s posts only once they are older than one month', async () => {
    const postId = await makeWallPost(t.db, storeId, id('member'), t.clock.now());
    const before = (await storeLog()).length;
    expectProblem(await t.call('DELETE', url(postId), sessions.manager), 403, 'store.forbidden');
    t.clock.advance(29 * DAY);
    await logInEveryoneAgain();
    expectProblem(await t.call('DELETE', url(postId), sessions.manager), 403, 'store.forbidden');
    expect(await postExists(postId)).toBe(true);
    expect(await storeLog()).toHaveLength(before);
    t.clock.advance(3 * DAY);
    await logInEveryoneAgain();
    expect((await t.call('DELETE', url(postId), sessions.manager)).statusCode).toBe(200);
    expect(await postExists(postId)).toBe(false);
  });

  it('refuses members, standby members and ambassadors other people\'s posts, however old', async () => {
    const postId = await makeWallPost(t.db, storeId, id('member'), new Date(t.clock.now().getTime() - 400 * DAY * 1000));
    for (const who of ['member2', 'standby', 'ambassador', 'outsider']) {
      expectProblem(await t.call('DELETE', url(postId), sessions[who]), 403, 'store.forbidden');
    }
    expect(await postExists(postId)).toBe(true);
  });

  it('lets orga delete any post at once', async () => {
    const postId = await makeWallPost(t.db, storeId, id('manager'), t.clock.now());
    expect((await t.call('DELETE', url(postId), sessions.orga)).statusCode).toBe(200);
    expect(await postExists(postId)).toBe(false);
  });

  it('answers 404 for an unknown post, a post of another store, an unknown store, and 400/404 for malformed ids', async () => {
    const otherStore = await makeStore(t.db, region, { member: [id('member')] });
    const postId = await makeWallPost(t.db, otherStore, id('member'), t.clock.now());
    expectProblem(await t.call('DELETE', url(postId), sessions.orga), 404, 'store.post-not-found');
    expectProblem(await t.call('DELETE', url(999_999), sessions.orga), 404, 'store.post-not-found');
    expectProblem(await t.call('DELETE', url(postId, 999_999), sessions.orga), 404, 'store.not-found');
    expect(await postExists(postId)).toBe(true);
    for (const bad of BAD_IDS) {
      for (const path of [url(postId).replace(String(postId), bad), `/api/stores/${bad}/posts/${postId}`]) {
        const response = await t.call('DELETE', path, sessions.orga);
        expect([400, 404], `${path}: ${response.body}`).toContain(response.statusCode);
      }
    }
    expect(await postExists(postId)).toBe(true);
  });
});

describe('POST /api/stores/{storeId}/pickups/{pickupDate}/{fsId}', () => {
  const url = (at: string, fsId: number, store = storeId) => `/api/stores/${store}/pickups/${at}/${fsId}`;
  let slotCount = 0;
  /** A slot at a whole minute about `days` from the clock's now; each call a different minute. */
  async function slotIn(days: number, capacity = 2): Promise<{ slotId: number; at: Date }> {
    slotCount += 1;
    const at = new Date(Math.floor(t.clock.now().getTime() / 60_000 + slotCount) * 60_000 + days * DAY * 1000);
    return { slotId: await makePickupSlot(t.db, storeId, at, capacity), at };
  }
  const signups = (slotId: number) =>
    t.db.selectFrom('store_pickup_signups').select(['user_id', 'is_confirmed']).where('slot_id', '=', slotId).orderBy('signed_up_at').execute();
  /** `2026-11-21T14:00:00+01:00` for an instant and an offset in minutes. */
  const withOffset = (at: Date, minutes: number) => {
    const local = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 19);
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  };

  it('answers 401 when logged out and 403 without the CSRF token, writing nothing', async () => {
    const { slotId, at } = await slotIn(2);
    expectProblem(await t.call('POST', url(at.toISOString(), id('member'))), 401);
    const noToken = await t.app.inject({ method: 'POST', url: url(at.toISOString(), id('member')), headers: { cookie: sessions.member!.cookie, 'x-csrf-token': 'wrong' } });
    expectProblem(noToken, 403, 'auth.csrf-invalid');
    expect(await signups(slotId)).toEqual([]);
  });

  it('signs a member up unconfirmed and writes a store-log entry', async () => {
    const { slotId, at } = await slotIn(2);
    const before = (await storeLog()).length;
    const response = await t.call('POST', url(at.toISOString(), id('member')), sessions.member);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ isConfirmed: false });
    expectKeys(response.json(), ['isConfirmed']);
    expect(await signups(slotId)).toEqual([{ user_id: id('member'), is_confirmed: false }]);
    const log = (await storeLog()).slice(before);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'pickup-signed-up', acting_user_id: id('member'), affected_user_id: id('member'), date_reference: at });
  });

  it('confirms a manager\'s sign-up at once', async () => {
    const { slotId, at } = await slotIn(3);
    const response = await t.call('POST', url(at.toISOString(), id('manager')), sessions.manager);
    expect(response.json()).toEqual({ isConfirmed: true });
    expect(await signups(slotId)).toEqual([{ user_id: id('manager'), is_confirmed: true }]);
  });

  it('accepts every RFC 3339 spelling of the slot\'s instant: Z, fractions, offsets, lower case, percent-encoding', async () => {
    const { slotId, at } = await slotIn(4, 5);
    const iso = at.toISOString();
    const first = await t.call('POST', url(iso.replace('.000Z', 'Z'), id('member')), sessions.member);
    expect(first.statusCode, first.body).toBe(200);
    const spellings = [
      iso, iso.replace('.000Z', '.0Z'), iso.replace('.000Z', '.000000000Z'), iso.replace('T', 't').replace('Z', 'z'),
      withOffset(at, 60), withOffset(at, -330), withOffset(at, 0), withOffset(at, 60).replace('+', '%2B'),
      encodeURIComponent(withOffset(at, 120)), iso.replace(/:/g, '%3A'),
    ];
    for (const spelling of spellings) {
      // Already signed up: the slot was found under this spelling.
      expectProblem(await t.call('POST', url(spelling, id('member')), sessions.member), 409, 'store.pickup-already-signed-up');
    }
    expect(await signups(slotId)).toHaveLength(1);
  });

  it('answers 400 for a pickupDate that is not an RFC 3339 date-time', async () => {
    const { at } = await slotIn(5);
    const iso = at.toISOString();
    const bad = [
      iso.slice(0, 19), iso.slice(0, 10), 'tomorrow', String(at.getTime()), `${iso.slice(0, 4)}-13-01T10:00:00Z`,
      `${iso.slice(0, 4)}-02-30T10:00:00Z`, `${iso.slice(0, 10)}T24:00:00Z`, `${iso.slice(0, 10)}T10:60:00Z`,
      `${iso.slice(0, 10)}T10:00:60Z`, `${iso.slice(0, 10)} 10:00:00Z`, `${iso.slice(0, 19)}+0100`, `${iso.slice(0, 19)}+24:00`,
      `${iso.slice(0, 19)}.Z`, `${iso.slice(0, 19)}.1234567890Z`, '\u0000', `${iso}\u0000`, `${iso} `, 'x'.repeat(150),
    ];
    for (const value of bad) {
      expectProblem(await t.call('POST', url(encodeURIComponent(value), id('member')), sessions.member), 400, 'request.invalid');
    }
  });

  it('answers 404 when the store has no slot at exactly that time, or the store does not exist', async () => {
    const { at } = await slotIn(6);
    const oneSecondLater = new Date(at.getTime() + 1000).toISOString();
    expectProblem(await t.call('POST', url(oneSecondLater, id('member')), sessions.member), 404, 'store.pickup-slot-not-found');
    const subMillisecond = at.toISOString().replace('.000Z', '.0001Z');
    const response = await t.call('POST', url(subMillisecond, id('member')), sessions.member);
    expectProblem(response, 404, 'store.pickup-slot-not-found');
    // The message names the time as sent, not its millisecond cut, at which the slot does exist.
    expect(response.json().detail).toBe(`Store ${storeId} has no pickup slot at ${subMillisecond}.`);
    expectProblem(await t.call('POST', url(at.toISOString(), id('member'), 999_999), sessions.member), 404, 'store.not-found');
  });

  it('answers 404, never 500, for valid RFC 3339 instants the database cannot store (years 0000 and 10000)', async () => {
    for (const edge of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '0000-12-31T23:59:59.999z', '9999-12-31T23:59:59-23:59']) {
      expectProblem(await t.call('POST', url(encodeURIComponent(edge), id('member')), sessions.member), 404, 'store.pickup-slot-not-found');
    }
  });

  it('answers 409 for a slot in the past, a full slot, and a second sign-up, writing nothing', async () => {
    const past = await slotIn(-1);
    expectProblem(await t.call('POST', url(past.at.toISOString(), id('member')), sessions.member), 409, 'store.pickup-in-past');
    const full = await slotIn(7, 1);
    expect((await t.call('POST', url(full.at.toISOString(), id('member2')), sessions.member2)).statusCode).toBe(200);
    const before = (await storeLog()).length;
    expectProblem(await t.call('POST', url(full.at.toISOString(), id('member')), sessions.member), 409, 'store.pickup-full');
    expectProblem(await t.call('POST', url(full.at.toISOString(), id('member2')), sessions.member2), 409, 'store.pickup-already-signed-up');
    expect(await signups(past.slotId)).toEqual([]);
    expect(await signups(full.slotId)).toEqual([{ user_id: id('member2'), is_confirmed: false }]);
    expect(await storeLog()).toHaveLength(before);
  });

  it('never overfills a slot when sign-ups race (a real race only on PostgreSQL: PGlite runs one transaction at a time)', async () => {
    const racers = await Promise.all([1, 2, 3, 4, 5].map(() => makeUser(t.db, { role: 'foodsaver', regionIds: [region] })));
    const raceStore = await makeStore(t.db, region, { member: racers.map((r) => r.id) });
    const at = new Date(Math.floor(t.clock.now().getTime() / 60_000) * 60_000 + 10 * DAY * 1000);
    const slotId = await makePickupSlot(t.db, raceStore, at, 2);
    const racerSessions = await Promise.all(racers.map((r) => t.logIn(r)));
    const responses = await Promise.all(racers.map((r, i) => t.call('POST', url(at.toISOString(), r.id, raceStore), racerSessions[i])));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 409, 409, 409]);
    expect(await signups(slotId)).toHaveLength(2);
  });

  it('lets users sign up only themselves, and only verified members and managers', async () => {
    const { slotId, at } = await slotIn(8);
    expectProblem(await t.call('POST', url(at.toISOString(), id('member2')), sessions.member), 403, 'store.forbidden');
    expectProblem(await t.call('POST', url(at.toISOString(), id('member')), sessions.orga), 403, 'store.forbidden');
    for (const who of ['standby', 'unverified', 'outsider', 'ambassador']) {
      expectProblem(await t.call('POST', url(at.toISOString(), id(who)), sessions[who]), 403, 'store.forbidden');
    }
    expect(await signups(slotId)).toEqual([]);
  });

  it('answers 400/404 for malformed store and user ids, never 500', async () => {
    const { slotId, at } = await slotIn(9);
    for (const bad of BAD_IDS) {
      for (const path of [url(at.toISOString(), id('member')).replace(`/${storeId}/`, `/${bad}/`), `${url(at.toISOString(), 1).slice(0, -1)}${bad}`]) {
        const response = await t.call('POST', path, sessions.member);
        expect([400, 403, 404], `${path}: ${response.body}`).toContain(response.statusCode);
        if (!bad.includes('%') && !/^\d+$/.test(bad)) expect(response.statusCode, path).toBe(400);
      }
    }
    expect(await signups(slotId)).toEqual([]);
  });
});

describe('POST /api/stores/{storeId}/managers/{userId}', () => {
  const url = (userId: number | string, store: number | string = storeId) => `/api/stores/${store}/managers/${userId}`;
  const team = (store: number) => t.db.selectFrom('store_team').select(['user_id', 'role']).where('store_id', '=', store).orderBy('user_id').execute();

  it('answers 401 when logged out, 404 for an unknown store, 403 to members, standby and outsiders', async () => {
    expectProblem(await t.call('POST', url(id('candidate'))), 401);
    expectProblem(await t.call('POST', url(id('candidate'), 999_999), sessions.orga), 404, 'store.not-found');
    for (const who of ['member', 'standby', 'outsider', 'foreignAmbassador']) {
      expectProblem(await t.call('POST', url(id('candidate')), sessions[who]), 403, 'store.forbidden');
    }
    expect((await team(storeId)).some((r) => r.user_id === id('candidate'))).toBe(false);
  });

  it('lets a manager make a store manager a team member and manager, and logs it', async () => {
    const before = (await storeLog()).length;
    const response = await t.call('POST', url(id('candidate')), sessions.manager);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await team(storeId)).toContainEqual({ user_id: id('candidate'), role: 'manager' });
    const log = (await storeLog()).slice(before);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'manager-appointed', acting_user_id: id('manager'), affected_user_id: id('candidate') });
  });

  it('answers 422 for an unknown user, an existing manager, a role below store manager, writing nothing', async () => {
    const before = await team(storeId);
    const logBefore = (await storeLog()).length;
    expectProblem(await t.call('POST', url(999_999), sessions.manager), 422, 'store.user-not-found');
    expectProblem(await t.call('POST', url(2_147_483_648), sessions.manager), 422, 'store.user-not-found');
    expectProblem(await t.call('POST', url(id('candidate')), sessions.manager), 422, 'store.already-manager');
    expectProblem(await t.call('POST', url(id('foodsaverCandidate')), sessions.orga), 422, 'store.role-too-low');
    expect(await team(storeId)).toEqual(before);
    expect(await storeLog()).toHaveLength(logBefore);
  });

  it('limits a store to 3 managers, except when orga or an ambassador of its region appoints', async () => {
    const store = await makeStore(t.db, region, { manager: [id('manager'), id('manager2')], member: [id('member')] });
    expect((await t.call('POST', url(id('candidate'), store), sessions.manager)).statusCode).toBe(200);
    expectProblem(await t.call('POST', url(id('outsider'), store), sessions.manager2), 422, 'store.manager-limit');
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(3);
    expect((await t.call('POST', url(id('outsider'), store), sessions.ambassador)).statusCode).toBe(200);
    const orgaStore = await makeStore(t.db, region, { manager: [id('manager'), id('manager2'), id('candidate')] });
    expect((await t.call('POST', url(id('outsider'), orgaStore), sessions.orga)).statusCode).toBe(200);
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(4);
    expect((await team(orgaStore)).filter((r) => r.role === 'manager')).toHaveLength(4);
  });

  it('never exceeds the limit when appointments race (a real race only on PostgreSQL: PGlite runs one transaction at a time)', async () => {
    const store = await makeStore(t.db, region, { manager: [id('manager')] });
    const candidates = await Promise.all([1, 2, 3, 4].map(() => makeUser(t.db, { role: 'store-manager' })));
    const responses = await Promise.all(candidates.map((c) => t.call('POST', url(c.id, store), sessions.manager)));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 422, 422]);
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(3);
  });

  it('answers 400/404 for ids that break [1-9][0-9]*, never 500', async () => {
    for (const bad of BAD_IDS) {
      for (const path of [url(bad), url(id('candidate'), bad)]) {
        const response = await t.call('POST', path, sessions.orga);
        expect([400, 404, 422], `${path}: ${response.body}`).toContain(response.statusCode);
        if (!bad.includes('%') && !/^\d+$/.test(bad) && bad !== '+1') expectProblem(response, 400, 'request.invalid');
      }
    }
  });
});
