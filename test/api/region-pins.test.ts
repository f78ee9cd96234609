/** GET and POST /api/region/{regionId}/pin (SPEC-API). */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
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
