/**
 * SPEC §4 / issue 4 "Must hold" 3: every POST, PUT, PATCH and DELETE under
 * /api refuses a missing or wrong X-CSRF-Token with 403 and changes nothing.
 * The routes are read from the built app, so routes added later are covered.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../src/demo/demo-data.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { listRoutes } from './helpers/routes.ts';
import { logInAs, type TestSession } from './helpers/session.ts';

/** The login call creates the session (and its token); it has no token to check yet. */
const WITHOUT_SESSION_TOKEN = new Set(['POST /api/user/login']);
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let t: TestApp;
let orga: TestSession;

beforeAll(async () => {
  t = await buildTestApp();
  await loadDemoData(t.db); // rows with id 1, 2, ... everywhere: a request that slipped through would change something
  orga = await logInAs(t.app, { email: 'orga@example.org', password: DEMO_PASSWORD });
});
afterAll(() => t.close());

const mutatingRoutes = () => listRoutes(t.app)
  .filter((r) => r.path.startsWith('/api/') && MUTATING.has(r.method) && !WITHOUT_SESSION_TOKEN.has(`${r.method} ${r.path}`));

/** A digest of every row of every table of this database. */
async function databaseDigest(): Promise<string> {
  const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(t.db);
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await sql<{ digest: string | null; n: number }>`select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as digest,
      count(*)::integer as n from ${sql.table(name)} x`.execute(t.db);
    parts.push(`${name}:${rows[0]!.n}:${rows[0]!.digest}`);
  }
  return parts.join('\n');
}

function fill(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name === 'pickupDate' ? encodeURIComponent(new Date().toISOString()) : name === 'featureToggle' ? 'petitionBanner' : name === 'type' ? 'webpush' : '1'));
}

describe('CSRF on every mutating /api route', () => {
  it('finds the mutating routes of every area', () => {
    const names = mutatingRoutes().map((r) => `${r.method} ${r.path}`);
    expect(names.length).toBeGreaterThanOrEqual(15);
    for (const expected of ['PATCH /api/baskets/:basketId', 'POST /api/uploads', 'PATCH /api/feature-toggles/:featureToggle', 'POST /api/user/logout']) {
      expect(names).toContain(expected);
    }
  });

  const tokens: [string, () => Record<string, string>][] = [
    ['without X-CSRF-Token', () => ({})],
    ['with an empty X-CSRF-Token', () => ({ 'x-csrf-token': '' })],
    ['with a wrong X-CSRF-Token', () => ({ 'x-csrf-token': randomBytes(32).toString('base64url') })],
    ['with a token one character off', () => ({ 'x-csrf-token': orga.csrfToken.slice(0, -1) + (orga.csrfToken.endsWith('A') ? 'B' : 'A') })],
    ['with the token in another header', () => ({ 'x-xsrf-token': orga.csrfToken })],
  ];

  it.each(tokens)('refuses every one %s with 403 auth.csrf-invalid and changes nothing', async (_name, headers) => {
    const before = await databaseDigest();
    for (const route of mutatingRoutes()) {
      const response = await t.app.inject({
        method: route.method as 'POST',
        url: fill(route.path),
        headers: { cookie: orga.cookie, ...headers() },
        payload: route.path.endsWith('/notifications/regions') ? [] : {},
      });
      const label = `${route.method} ${route.path}`;
      expect(response.statusCode, label).toBe(403);
      expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
      expect(response.json(), label).toMatchObject({ status: 403, code: 'auth.csrf-invalid' });
    }
    expect(await databaseDigest()).toBe(before);
  });

  it('lets the same session through with the right token, and the digest sees that change', async () => {
    const before = await databaseDigest();
    const response = await t.app.inject({
      method: 'PATCH', url: '/api/feature-toggles/petitionBanner?newState=true', headers: orga.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(await databaseDigest()).not.toBe(before);
  });
});
