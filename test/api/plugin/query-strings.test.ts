/**
 * Closed query strings on every /api route, generated from the built app's
 * route list (routes added later are covered, or this test names them): an
 * unknown query parameter is a 400 naming it, even on a route that declares
 * no query at all, and nothing is written. Each request is otherwise one the
 * route would carry out or refuse only by a domain rule (409, 422): a
 * logged-in orga with CSRF token (the store manager for a pickup sign-up), a
 * valid body, ids of things that exist and the caller may change. So the
 * 404 and 403 checks, which come before the query's, pass and the 400 is the
 * query's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createPoll } from '../../../src/api/polls/polls.service.ts';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../../src/demo/demo-data.ts';
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
let manager: TestSession;
let demo: DemoSummary;
const ids: Record<string, string> = {};
/** Routes whose ids differ from the shared ones: the caller's own open request, a slot of the manager's store. */
const urls: Record<string, string> = {};

beforeAll(async () => {
  demo = await loadDemoData(t.db); // rows with id 1, 2, ... everywhere: a request that slipped through would change something
  const orgaUser = demo.users.find((u) => u.email === 'orga@example.org')!;
  orga = await t.logIn({ email: orgaUser.email, password: DEMO_PASSWORD });
  const basket = await t.app.inject({ method: 'POST', url: '/api/baskets', headers: orga.headers, payload: BODIES['POST /api/baskets'] as object });
  ids.basketId = String(basket.json().id);
  const upload = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: orga.headers, payload: BODIES['POST /api/uploads'] as object });
  ids.uuid = upload.json().uuid;
  const othersBasket = demo.sharing.baskets[0]!.id;
  await t.app.inject({ method: 'POST', url: `/api/baskets/${othersBasket}/request`, headers: orga.headers });
  urls['POST /api/baskets/:basketId/withdraw'] = `/api/baskets/${othersBasket}/withdraw`;
  const store = demo.community.stores.find((s) => s.managers.length > 0 && s.pickups.some((p) => Date.parse(p.at) > t.clock.now().getTime()))!;
  const slot = store.pickups.find((p) => Date.parse(p.at) > t.clock.now().getTime())!;
  manager = await t.logIn({ email: store.managers[0]!.email, password: DEMO_PASSWORD });
  urls['POST /api/stores/:storeId/pickups/:pickupDate/:fsId'] = `/api/stores/${store.id}/pickups/${encodeURIComponent(slot.at)}/${store.managers[0]!.id}`;
  const pin = demo.community.regionPins[0]!;
  urls['GET /api/region/:regionId/pin'] = `/api/region/${pin.regionId}/pin`;
  urls['HEAD /api/region/:regionId/pin'] = `/api/region/${pin.regionId}/pin`;
  const regionId = demo.regions[0]!.id;
  const start = t.clock.now().getTime() + 86_400_000;
  ids.pollId = String(await createPoll(t.db, t.clock.now, {
    regionId, authorId: orgaUser.id, name: 'Fest', description: 'Wann?', scope: 0, type: 0,
    startDate: new Date(start), endDate: new Date(start + 86_400_000), shuffleOptions: false,
  }, ['Juni', 'Juli']));
});

const apiRoutes = () => listRoutes(t.app).filter((r) => r.path === '/api' || r.path.startsWith('/api/'));

function fill(label: string, path: string): string {
  return urls[label] ?? path.replace(/:(\w+)/g, (_m, name: string) => ids[name]
    ?? (name === 'featureToggle' ? 'petitionBanner' : name === 'type' ? 'webpush' : '1'))
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
        method: route.method as 'GET', url: `${fill(label, route.path)}?unknownParam=1`,
        headers: label.startsWith('POST /api/stores/:storeId/pickups/') ? manager.headers : orga.headers,
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

/** [operation, method, url of something missing, url of something that exists or undefined, demo user refused it with 403, its code]. */
type OrderCase = [string, 'GET' | 'POST' | 'DELETE', string, string | undefined, string, string];

const ORDER_CASES = (): OrderCase[] => {
  const berlinStore = demo.community.stores[0]!.id;
  const report = demo.community.reports[0]!.id;
  const session = demo.community.quizzes.flatMap((q) => q.sessions)[0]!;
  return [
    ['store wall', 'GET', '/api/stores/99999/posts', `/api/stores/${berlinStore}/posts`, 'koeln@example.org', 'store.forbidden'],
    ['store manager', 'POST', '/api/stores/99999/managers/1', `/api/stores/${berlinStore}/managers/1`, 'koeln@example.org', 'store.forbidden'],
    ['content delete', 'DELETE', '/api/contents/99', '/api/contents/1', 'foodsaver@example.org', 'content.forbidden'],
    ['report delete', 'DELETE', '/api/report/99', `/api/report/${report}`, 'foodsaver@example.org', 'report.forbidden'],
    ['quiz sessions', 'GET', '/api/quiz/sessions/99999', `/api/quiz/sessions/${session.foodsaverId}`, 'koeln@example.org', 'quiz.forbidden'],
    ['quiz session delete', 'DELETE', '/api/quiz/session/99999', `/api/quiz/session/${session.id}`, 'foodsaver@example.org', 'quiz.forbidden'],
    ['region pin', 'GET', '/api/region/99999/pin', undefined, 'foodsaver@example.org', ''],
    ['basket withdraw', 'POST', '/api/baskets/99/withdraw', undefined, 'foodsaver@example.org', ''],
    ['basket', 'GET', '/api/baskets/99', undefined, 'foodsaver@example.org', ''],
    ['poll', 'GET', '/api/polls/99999', undefined, 'foodsaver@example.org', ''],
    ['upload', 'GET', '/api/uploads/00000000-0000-4000-8000-000000000000', undefined, 'foodsaver@example.org', ''],
    ['push', 'GET', '/api/push-notification/nope/server-information', undefined, 'foodsaver@example.org', ''],
  ];
};

describe('an unknown query parameter is checked after 404 and 403', () => {
  it('answers 404 for a missing thing and 403 without permission, whatever the query; changes nothing', async () => {
    const callers = new Map<string, TestSession>();
    for (const [, , , , email] of ORDER_CASES()) {
      if (!callers.has(email)) callers.set(email, await t.logIn({ email, password: DEMO_PASSWORD }));
    }
    const before = await databaseDigest(t.db);
    for (const [name, method, missing, existing, refused, code] of ORDER_CASES()) {
      const caller = callers.get(refused)!;
      const notFound = await t.app.inject({ method, url: `${missing}?foo=1`, headers: caller.headers });
      expect(notFound.statusCode, name).toBe(404);
      expect(notFound.headers['content-type'], name).toMatch(/^application\/problem\+json/);
      if (existing === undefined) continue;
      const forbidden = await t.app.inject({ method, url: `${existing}?foo=1`, headers: caller.headers });
      expect(forbidden.statusCode, name).toBe(403);
      expect(forbidden.json().code, name).toBe(code);
    }
    expect(await databaseDigest(t.db)).toBe(before);
  });

  it('answers the query\'s 400 once the caller may act, before a rule of the domain (422)', async () => {
    const store = demo.community.stores[0]!.id;
    const response = await t.app.inject({ method: 'POST', url: `/api/stores/${store}/managers/99999?foo=1`, headers: orga.headers });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([{ field: 'querystring/foo', message: 'is not a parameter of this operation' }]);
  });

  it('answers the region pin\'s query 400 once the pin exists, and the pin itself without a query', async () => {
    const pin = demo.community.regionPins[0]!;
    const ok = await t.app.inject({ method: 'GET', url: `/api/region/${pin.regionId}/pin`, headers: orga.headers });
    expect(ok.statusCode).toBe(200);
    const bad = await t.app.inject({ method: 'GET', url: `/api/region/${pin.regionId}/pin?x=1`, headers: orga.headers });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ field: 'querystring/x', message: 'is not a parameter of this operation' }]);
  });

  it('reports broken JSON on a bodiless operation after its 404 and 403 too, and deletes nothing', async () => {
    const report = demo.community.reports[0]!.id;
    const json = { 'content-type': 'application/json' };
    const foodsaver = await t.logIn({ email: 'foodsaver@example.org', password: DEMO_PASSWORD });
    const missing = await t.app.inject({ method: 'DELETE', url: '/api/report/99', headers: { ...orga.headers, ...json }, payload: '{' });
    expect(missing.statusCode).toBe(404);
    const refused = await t.app.inject({ method: 'DELETE', url: `/api/report/${report}`, headers: { ...foodsaver.headers, ...json }, payload: '{' });
    expect(refused.statusCode).toBe(403);
    const broken = await t.app.inject({ method: 'DELETE', url: `/api/report/${report}`, headers: { ...orga.headers, ...json }, payload: '{' });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors).toEqual([{ field: 'body', message: 'is not valid JSON' }]);
    expect(await t.db.selectFrom('reports').select('id').where('id', '=', report).executeTakeFirst()).toEqual({ id: report });
  });

  it('names a prototype key as what is refused in a body that is valid JSON', async () => {
    const json = { 'content-type': 'application/json' };
    for (const payload of ['{"name":"n","title":"t","body":"b","__proto__":{"x":1}}', '{"name":"n","title":"t","body":"b","constructor":{"prototype":{"x":1}}}']) {
      const refused = await t.app.inject({ method: 'POST', url: '/api/contents', headers: { ...orga.headers, ...json }, payload });
      expect(refused.statusCode, payload).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'request.invalid', detail: 'The request body must not contain a "__proto__" key, or a "constructor" key with a "prototype".',
        errors: [{ field: 'body', message: 'must not contain "__proto__", or "constructor" with "prototype"' }],
      });
    }
  });
});
