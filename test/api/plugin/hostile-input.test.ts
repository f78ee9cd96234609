/**
 * Hostile input against every /api
 * route (bad path segments, wrong JSON types, arrays for objects, null and
 * empty bodies, huge numbers, NUL bytes, non-JSON content types) never gives
 * a 5xx, always answers problem+json, and changes nothing. The routes are read
 * from the built app, so routes added later are covered too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../../src/demo/demo-data.ts';
import { databaseDigest } from '../../helpers/digest.ts';
import { useTestApp } from '../../helpers/fixture.ts';
import { listRoutes } from '../../helpers/routes.ts';
import type { TestSession } from '../../helpers/session.ts';

/** Login creates sessions and logout ends the one this test uses: both have their own tests. */
const SKIPPED = new Set(['POST /api/user/login', 'POST /api/user/logout']);

/** [label, payload, content-type]: none of them is a valid body of any operation. */
const BODIES: Array<[string, string | undefined, string | undefined]> = [
  ['no body', undefined, undefined],
  ['an empty JSON body', '', 'application/json'],
  ['null', 'null', 'application/json'],
  ['a string', '"x"', 'application/json'],
  ['a number beyond double', '1e400', 'application/json'],
  ['an array of nulls', '[null]', 'application/json'],
  ['broken JSON', '{"name":', 'application/json'],
  ['a prototype-polluting object', '{"__proto__":{"isOrga":true},"constructor":{"prototype":{"x":1}}}', 'application/json'],
  ['wrong JSON types', JSON.stringify({ name: 1, title: [], body: {}, description: null, options: 'x', lat: '1', lon: true,
    contactTypes: [[1, 2]], pictures: [1], filename: 5, status: '1', shuffleOptions: 'true', notifyByEmailAboutNewThreads: 'yes' }), 'application/json'],
  ['NUL bytes', JSON.stringify({ name: 'a\u0000', title: 't\u0000', body: 'b\u0000', description: 'd\u0000', options: ['\u0000'],
    filename: '\u0000', mobile: '1\u0000', lat: 0, lon: 0, status: 1 }), 'application/json'],
  ['huge numbers', '{"lat":1e308,"lon":-1e308,"weightInGrams":1e20,"lifeTimeInDays":9007199254740993,"status":1e30,"id":1e30}', 'application/json'],
  ['objects of huge ids', JSON.stringify([{ id: 1e30, notifyByEmailAboutNewThreads: true }, { id: -1, notifyByEmailAboutNewThreads: false }]), 'application/json'],
  ['a form', 'name=a&title=b&body=c&description=x', 'application/x-www-form-urlencoded'],
  ['text', '{"name":"a","title":"b","body":"c"}', 'text/plain'],
  ['XML', '<a/>', 'application/xml'],
];

/** Path segments breaking `[1-9][0-9]*`, `\d+`, `[a-zA-Z]+`, `\w+`, RFC 3339 or a uuid, or naming nothing. */
const SEGMENTS = ['0', '-1', 'abc', '1.5', '%00', '1%00', '%F0%9F%98%80', '%2F', '+1', '2147483648', '9'.repeat(40)];

const t = useTestApp();
let demo: DemoSummary;
const sessions: Record<string, TestSession> = {};

beforeAll(async () => {
  demo = await loadDemoData(t.db);
  for (const name of ['orga', 'foodsharer', 'foodsaver', 'ambassador']) {
    sessions[name] = await t.logIn({ email: `${name}@example.org`, password: DEMO_PASSWORD });
  }
});

/** One of {@link BODIES}, as `session`: its payload with its content type, if any. */
function send(method: string, url: string, session: TestSession | undefined, [, payload, contentType]: (typeof BODIES)[number]) {
  return t.call(method, url, session, payload, contentType ? { 'content-type': contentType } : {});
}

function expectRefusedCleanly(response: Awaited<ReturnType<typeof send>>, label: string): void {
  expect(response.statusCode, `${label}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
  if (response.statusCode >= 400) {
    expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
    expect(response.json().status, label).toBe(response.statusCode);
  }
}

describe('hostile input against every /api route', () => {
  it('never answers 5xx for path segments that break the pattern or name nothing, whatever the body; changes nothing', async () => {
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/api/') && r.path.includes(':') && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const before = await databaseDigest(t.db);
    for (const route of routes) {
      for (const segment of SEGMENTS) {
        const url = route.path.replace(/:\w+/g, segment);
        for (const body of BODIES) {
          for (const session of [sessions.orga, undefined]) {
            const response = await send(route.method, url, session, body);
            expectRefusedCleanly(response, `${route.method} ${url} with ${body[0]} ${session ? 'as orga' : 'logged out'}`);
            if (route.method !== 'GET') expect(response.statusCode, `${route.method} ${url}`).toBeGreaterThanOrEqual(400);
          }
        }
      }
    }
    expect(await databaseDigest(t.db)).toBe(before);
  }, 120_000);

  it('refuses every hostile body with 4xx from the one allowed to send it, and changes nothing', async () => {
    const routes = listRoutes(t.app).filter((r) => r.path.startsWith('/api/') && ['POST', 'PUT', 'PATCH'].includes(r.method)
      && !SKIPPED.has(`${r.method} ${r.path}`));
    const bread = demo.sharing.baskets[0]!;
    const futurePoll = demo.sharing.polls.find((p) => !p.hasStarted)!;
    /** Who may call each body-taking operation, and with which ids, so that only the body can be wrong. */
    const targets: Record<string, [string, string]> = {
      'PATCH /api/baskets/:basketId': [`/api/baskets/${bread.id}`, 'foodsharer'],
      'PATCH /api/polls/:pollId': [`/api/polls/${futurePoll.id}`, 'ambassador'],
      'POST /api/region/:regionId/pin': [`/api/region/${demo.community.regionPins[0]!.regionId}/pin`, 'orga'],
      'PATCH /api/content/:contentId': [`/api/content/${demo.community.contents[0]!.id}`, 'orga'],
      'POST /api/contents': ['/api/contents', 'orga'],
      'POST /api/baskets': ['/api/baskets', 'foodsaver'],
      'POST /api/uploads': ['/api/uploads', 'foodsaver'],
      'PATCH /api/notifications/regions': ['/api/notifications/regions', 'foodsaver'],
    };
    const withBody = routes.filter((r) => targets[`${r.method} ${r.path}`]);
    expect(withBody).toHaveLength(Object.keys(targets).length);
    for (const route of withBody) {
      const [url, who] = targets[`${route.method} ${route.path}`]!;
      const before = await databaseDigest(t.db);
      for (const body of BODIES) {
        const response = await send(route.method, url, sessions[who], body);
        const label = `${route.method} ${url} with ${body[0]}`;
        expectRefusedCleanly(response, label);
        // A poll PATCH whose fields are all unknown is an empty PATCH: 200, nothing changes (checked below).
        if (!(route.path === '/api/polls/:pollId' && body[0] === 'huge numbers')) expect(response.statusCode, label).toBeGreaterThanOrEqual(400);
      }
      expect(await databaseDigest(t.db), `${route.method} ${route.path}`).toBe(before);
    }
  }, 60_000);
});
