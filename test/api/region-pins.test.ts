/** GET and POST /api/region/{regionId}/pin (SPEC-API). */
import { beforeAll, describe, expect, it } from 'vitest';
import { digestSessionId, liveSessionParams } from '../../src/accounts/sessions.ts';
import { findRegionWithPinInSession } from '../../src/api/region-pins/region-pins.repository.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makeRegion } from '../helpers/factories.ts';
import type { TestSession } from '../helpers/session.ts';

const t = useTestApp();
let region: number;
let otherRegion: number;
const s: Record<string, TestSession> = {};
const pin = { lat: 52.5, lon: 13.4, description: 'Treffpunkt am Markt', status: 1 };

beforeAll(async () => {
  region = await makeRegion(t.db);
  otherRegion = await makeRegion(t.db);
  s.ambassador = await t.as('ambassador', { ambassadorOf: [region] });
  s.foreignAmbassador = await t.as('ambassador', { ambassadorOf: [otherRegion] });
  s.member = await t.as('foodsaver', { regionIds: [region] });
  s.orga = await t.as('orga');
});

const stored = (regionId: number) => t.db.selectFrom('region_pins').selectAll().where('region_id', '=', regionId).executeTakeFirst();

describe('region pins', () => {
  it('answers 404 while a region has no pin, and for unknown regions', async () => {
    expectProblem(await t.call('GET', `/api/region/${region}/pin`, s.member), 404, 'region.pin-not-found');
    expectProblem(await t.call('GET', '/api/region/999999/pin', s.member), 404, 'region.not-found');
  });

  it('lets an ambassador of the region set the pin, which any logged-in user then reads as {lat, lon, description, status}', async () => {
    const response = await t.call('POST', `/api/region/${region}/pin`, s.ambassador, pin);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual(pin);
    for (const who of ['member', 'foreignAmbassador']) {
      const read = await t.call('GET', `/api/region/${region}/pin`, s[who]);
      expect(read.statusCode).toBe(200);
      expectKeys(read.json(), ['lat', 'lon', 'description', 'status']);
      expect(read.json()).toEqual(pin);
    }
    const changed = { lat: -33.25, lon: -70.5, description: '', status: 0 };
    expect((await t.call('POST', `/api/region/${region}/pin`, s.orga, changed)).json()).toEqual(changed);
    expect(await stored(region)).toMatchObject({ region_id: region, ...changed });
  });

  it('answers each of twenty pins set at once with the pin it set, not another\'s stored a moment later (truly concurrent on PostgreSQL)', async () => {
    const pins = Array.from({ length: 20 }, (_, i) => ({ lat: 50 + i / 10, lon: 10 + i / 10, description: `Pin ${i}`, status: i % 2 }));
    const answers = await Promise.all(pins.map((p, i) => t.call('POST', `/api/region/${region}/pin`, i % 2 === 0 ? s.ambassador : s.orga, p)));
    expect(answers.map((a) => a.json())).toEqual(pins);
    expect(pins).toContainEqual(await t.call('GET', `/api/region/${region}/pin`, s.member).then((r) => r.json()));
  });

  it('answers 401 logged out; 403 to others (before a bad body); 400 for a bad body; 404 unknown region; changing nothing', async () => {
    expectProblem(await t.call('GET', `/api/region/${otherRegion}/pin`), 401);
    expectProblem(await t.call('POST', `/api/region/${otherRegion}/pin`, undefined, pin), 401);
    expectProblem(await t.call('POST', `/api/region/${otherRegion}/pin`, s.ambassador, pin), 403, 'region.forbidden');
    expectProblem(await t.call('POST', `/api/region/${otherRegion}/pin`, s.member, { lat: 'x' }), 403, 'region.forbidden');
    expectProblem(await t.call('POST', '/api/region/999999/pin', s.orga, { lat: 'x' }), 404, 'region.not-found');
    for (const bad of [{ ...pin, lat: 91 }, { ...pin, lon: -181 }, { ...pin, status: 2 }, { ...pin, status: 0.5 }, { lat: 1, lon: 1, status: 1 }, { ...pin, description: 'a\u0000' }, {}]) {
      expectProblem(await t.call('POST', `/api/region/${otherRegion}/pin`, s.foreignAmbassador, bad), 400, 'request.invalid');
    }
    expect(await stored(otherRegion)).toBeUndefined();
    for (const bad of BAD_IDS) {
      for (const method of ['GET', 'POST'] as const) {
        const response = await t.call(method, `/api/region/${bad}/pin`, s.orga, method === 'POST' ? pin : undefined);
        expect([400, 404], `${method} ${bad}: ${response.body}`).toContain(response.statusCode);
      }
    }
  });
});

/**
 * The read takes the session in the route's own statement (api/actor.ts `inSessionStatement`): the answers
 * and their order are those of every other route, and the statement keeps the session's rules.
 */
describe('reading a pin with the session in the same statement', () => {
  const sessionId = (who: LoggedIn) => /fs_session=([^;]+)/.exec(who.cookie)![1]!;
  const sessionRow = (who: LoggedIn) => t.db.selectFrom('sessions').select(['last_seen_at', 'expires_at'])
    .where('id_digest', '=', digestSessionId(sessionId(who))).executeTakeFirstOrThrow();

  it('answers 401 for a session cookie of no session, before a bad region id (400) and an unknown region (404)', async () => {
    const unknown = { cookie: `fs_session=${'A'.repeat(43)}`, csrfToken: '', headers: {} };
    for (const url of [`/api/region/${region}/pin`, '/api/region/abc/pin', '/api/region/999999/pin', `/api/region/${region}/pin?x=1`]) {
      const response = await t.call('GET', url, unknown);
      expectProblem(response, 401);
      expect(response.json()).toEqual((await t.call('GET', url)).json());
    }
    const member = await t.as('foodsaver');
    expectProblem(await t.call('GET', '/api/region/abc/pin', member), 400, 'request.invalid');
    expectProblem(await t.call('GET', `/api/region/${region}/pin?x=1`, member), 400, 'request.invalid');
    expectProblem(await t.call('GET', '/api/region/999999/pin', member), 404, 'region.not-found');
  });

  it('answers 401 once the session expired, was ended, or its member was disabled', async () => {
    const expired = await t.as('foodsaver');
    await t.db.updateTable('sessions').set({ expires_at: t.clock.now() }).where('id_digest', '=', digestSessionId(sessionId(expired))).execute();
    expectProblem(await t.call('GET', `/api/region/${region}/pin`, expired), 401);
    const ended = await t.as('foodsaver');
    expect((await t.call('POST', '/api/user/logout', ended)).statusCode).toBe(204);
    expectProblem(await t.call('GET', `/api/region/${region}/pin`, ended), 401);
    const disabled = await t.as('foodsaver');
    expect((await t.call('GET', `/api/region/${region}/pin`, disabled)).statusCode).toBe(200);
    await t.db.updateTable('users').set({ disabled_at: t.clock.now() }).where('id', '=', disabled.user.id).execute();
    expectProblem(await t.call('GET', `/api/region/${region}/pin`, disabled), 401);
  });

  it('records that the session is used, at most every five minutes, as any other request does', async () => {
    const member = await t.as('foodsaver', { rememberMe: true });
    const signedInAt = (await sessionRow(member)).last_seen_at;
    t.clock.advance(4 * 60);
    expect((await t.call('GET', `/api/region/${region}/pin`, member)).statusCode).toBe(200);
    expect((await sessionRow(member)).last_seen_at).toEqual(signedInAt);
    t.clock.advance(60);
    const now = t.clock.now();
    expect((await t.call('GET', `/api/region/${region}/pin`, member)).statusCode).toBe(200);
    expect((await sessionRow(member)).last_seen_at.getTime()).toBeGreaterThanOrEqual(now.getTime());
  });

  it('the statement: no row without a live session, the region and pin with one, and the last use recorded in it', async () => {
    const member = await t.as('foodsaver');
    const digest = digestSessionId(sessionId(member));
    const now = t.clock.now();
    expect(await findRegionWithPinInSession(t.db, liveSessionParams(digestSessionId('A'.repeat(43)), now), region)).toEqual({ live: false });
    expect(await findRegionWithPinInSession(t.db, liveSessionParams(digest, now), 999999)).toEqual({ live: true, region: undefined });
    expect(await findRegionWithPinInSession(t.db, liveSessionParams(digest, now), region))
      .toEqual({ live: true, region: { pin: expect.objectContaining({ region_id: region }) } });
    const later = new Date(now.getTime() + 5 * 60_000);
    await findRegionWithPinInSession(t.db, liveSessionParams(digest, later), region);
    expect((await sessionRow(member)).last_seen_at).toEqual(later);
    const { expires_at } = await sessionRow(member);
    expect(await findRegionWithPinInSession(t.db, liveSessionParams(digest, expires_at), region)).toEqual({ live: false });
  });
});
