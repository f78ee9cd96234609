/**
 * Pickup sign-ups (SPEC-API): every listed status code, the domain rules,
 * what is and is not written.
 */
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makePickupSlot, makeStore } from '../helpers/api-factories.ts';
import { makeUser } from '../helpers/factories.ts';
import { DAY, useStoreTeam } from './store-team.ts';

const t = useTestApp();
const setup = useStoreTeam(t);
const { sessions, id, storeLog } = setup;

describe('POST /api/stores/{storeId}/pickups/{pickupDate}/{fsId}', () => {
  const url = (at: string, fsId: number, store = setup.storeId) => `/api/stores/${store}/pickups/${at}/${fsId}`;
  let slotCount = 0;
  /** A slot at a whole minute about `days` from the clock's now; each call a different minute. */
  async function slotIn(days: number, capacity = 2): Promise<{ slotId: number; at: Date }> {
    slotCount += 1;
    const at = new Date(Math.floor(t.clock.now().getTime() / 60_000 + slotCount) * 60_000 + days * DAY * 1000);
    return { slotId: await makePickupSlot(t.db, setup.storeId, at, capacity), at };
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
    expect(response.json().detail).toBe(`Store ${setup.storeId} has no pickup slot at ${subMillisecond}.`);
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
    const racers = await Promise.all([1, 2, 3, 4, 5].map(() => makeUser(t.db, { role: 'foodsaver', regionIds: [setup.region] })));
    const raceStore = await makeStore(t.db, setup.region, { member: racers.map((r) => r.id) });
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
      for (const path of [url(at.toISOString(), id('member')).replace(`/${setup.storeId}/`, `/${bad}/`), `${url(at.toISOString(), 1).slice(0, -1)}${bad}`]) {
        const response = await t.call('POST', path, sessions.member);
        expect([400, 403, 404], `${path}: ${response.body}`).toContain(response.statusCode);
        if (!bad.includes('%') && !/^\d+$/.test(bad)) expect(response.statusCode, path).toBe(400);
      }
    }
    expect(await signups(slotId)).toEqual([]);
  });
});
