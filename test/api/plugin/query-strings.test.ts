/**
 * Closed query strings on every /api route, generated from the built app's
 * route list (routes added later are covered, or this test names them): an
 * unknown query parameter is a 400 naming it, even on a route that declares
 * no query at all, and nothing is written. Each request is otherwise one the
 * route would carry out (a logged-in orga with CSRF token, a valid body, ids
 * of things the orga may change), so the 400 is the query's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createPoll } from '../../../src/api/polls/polls.service.ts';
import { DEMO_PASSWORD, loadDemoData } from '../../../src/demo/demo-data.ts';
import { useTestApp } from '../../helpers/fixture.ts';
import { databaseDigest } from '../../helpers/digest.ts';
import { listRoutes } from '../../helpers/routes.ts';
import type { TestSession } from '../../helpers/session.ts';

const UNKNOWN = { field: 'querystring/unknownParam', message: 'is not a parameter of this operation' };

/** A valid body for each route that takes one; a route missing here fails with its body's 400. */
const BODIES: Record<string, unknown> = {
  'POST /api/user/login': { email: 'orga@example.org', password: DEMO_PASSWORD, rememberMe: false },
  'POST /api/uploads': { filename: 'note.txt', body: 'aGVsbG8=' },
  'POST /api/region/:regionId/pin': { lat: 52.5, lon: 13.4, description: 'Treffpunkt', status: 1 },
  'PATCH /api/notifications/regions': [],
  'POST /api/contents': { name: 'faq', title: 'FAQ', body: 'Fragen' },
  'PATCH /api/content/:contentId': { title: 'Neu' },
  'POST /api/baskets': { description: 'Brot', contactTypes: [1], lat: 52.5, lon: 13.4, lifeTimeInDays: 3 },
  'PATCH /api/baskets/:basketId': { description: 'Neu' },
  'PATCH /api/polls/:pollId': { name: 'Neu' },
};

const t = useTestApp();
let orga: TestSession;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const demo = await loadDemoData(t.db); // rows with id 1, 2, ... everywhere: a request that slipped through would change something
  const orgaUser = demo.users.find((u) => u.email === 'orga@example.org')!;
  orga = await t.logIn({ email: orgaUser.email, password: DEMO_PASSWORD });
  const basket = await t.app.inject({ method: 'POST', url: '/api/baskets', headers: orga.headers, payload: BODIES['POST /api/baskets'] as object });
  ids.basketId = String(basket.json().id);
  const regionId = demo.regions[0]!.id;
  const start = t.clock.now().getTime() + 86_400_000;
  ids.pollId = String(await createPoll(t.db, t.clock.now, {
    regionId, authorId: orgaUser.id, name: 'Fest', description: 'Wann?', scope: 0, type: 0,
    startDate: new Date(start), endDate: new Date(start + 86_400_000), shuffleOptions: false,
  }, ['Juni', 'Juli']));
});

const apiRoutes = () => listRoutes(t.app).filter((r) => r.path === '/api' || r.path.startsWith('/api/'));

function fill(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => ids[name]
    ?? (name === 'pickupDate' ? encodeURIComponent(t.clock.now().toISOString())
      : name === 'featureToggle' ? 'petitionBanner' : name === 'type' ? 'webpush'
        : name === 'uuid' ? '00000000-0000-4000-8000-000000000000' : '1'))
    .replace(/\*$/, 'static/swagger-ui.css');
}

describe('closed query strings on every /api route', () => {
  it('finds the routes of every area, bodiless deletes among them', () => {
    const names = apiRoutes().map((r) => `${r.method} ${r.path}`);
    expect(names.length).toBeGreaterThanOrEqual(40);
    for (const expected of ['DELETE /api/contents/:contentId', 'DELETE /api/report/:reportId', 'POST /api/baskets/:basketId/withdraw',
      'GET /api/petition', 'POST /api/user/logout', 'GET /api/openapi.json']) expect(names).toContain(expected);
  });

  it('answers 400 naming ?unknownParam on each, and writes nothing', async () => {
    const before = await databaseDigest(t.db);
    for (const route of apiRoutes()) {
      const label = `${route.method} ${route.path}`;
      const body = BODIES[label];
      const response = await t.app.inject({
        method: route.method as 'GET', url: `${fill(route.path)}?unknownParam=1`, headers: orga.headers,
        ...(body === undefined ? {} : { payload: body as object }),
      });
      expect(response.statusCode, label).toBe(400);
      if (route.method === 'HEAD') continue;
      expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
      expect(response.json().errors, label).toContainEqual(UNKNOWN);
    }
    expect(await databaseDigest(t.db)).toBe(before);
  });

  it('still carries out a request without the unknown parameter (DELETE /api/contents/{id})', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/api/contents/2', headers: orga.headers });
    expect(response.statusCode).toBe(200);
  });
});
