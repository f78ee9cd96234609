/**
 * SPEC §4: every POST, PUT, PATCH and DELETE under
 * /api refuses a missing or wrong X-CSRF-Token with 403 and changes nothing.
 * The routes are read from the built app, so routes added later are covered.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData } from '../../../src/demo/demo-data.ts';
import { databaseDigest } from '../../helpers/digest.ts';
import { useTestApp } from '../../helpers/fixture.ts';
import { listRoutes } from '../../helpers/routes.ts';
import type { TestSession } from '../../helpers/session.ts';

/** The login call creates the session (and its token); it has no token to check yet. */
const WITHOUT_SESSION_TOKEN = new Set(['POST /api/user/login']);
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const t = useTestApp();
let orga: TestSession;

beforeAll(async () => {
  await loadDemoData(t.db); // rows with id 1, 2, ... everywhere: a request that slipped through would change something
  orga = await t.logIn({ email: 'orga@example.org', password: DEMO_PASSWORD });
});

const mutatingRoutes = () => listRoutes(t.app)
  .filter((r) => r.path.startsWith('/api/') && MUTATING.has(r.method) && !WITHOUT_SESSION_TOKEN.has(`${r.method} ${r.path}`));

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
    const before = await databaseDigest(t.db);
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
    expect(await databaseDigest(t.db)).toBe(before);
  });

  it('lets the same session through with the right token, and the digest sees that change', async () => {
    const before = await databaseDigest(t.db);
    const response = await t.app.inject({
      method: 'PATCH', url: '/api/feature-toggles/petitionBanner?newState=true', headers: orga.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(await databaseDigest(t.db)).not.toBe(before);
  });
});
