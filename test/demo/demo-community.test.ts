/** The community part of the demo dataset: what `npm run cli -- demo --json` prints, and that the API serves it. */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../src/demo/demo-data.ts';
import { call } from '../helpers/api.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { logInAs } from '../helpers/session.ts';

const t = useTestApp();
let summary: DemoSummary;

beforeAll(async () => {
  summary = await loadDemoData(t.db);
});

describe('community demo data', () => {
  it('lists stores with managers, members, standby, posts (one older than a month) and pickups (past, full, free)', () => {
    const { stores } = summary.community;
    expect(stores.length).toBeGreaterThanOrEqual(2);
    for (const store of stores) {
      expect(store.id).toBeGreaterThan(0);
      expect(store.managers.length).toBeGreaterThan(0);
      expect(store.members.length).toBeGreaterThan(0);
      expect(store.standby.length).toBeGreaterThan(0);
    }
    const now = Date.now();
    const posts = stores.flatMap((s) => s.posts);
    expect(posts.some((p) => now - Date.parse(p.createdAt) > 31 * 86_400_000)).toBe(true);
    const pickups = stores.flatMap((s) => s.pickups);
    expect(pickups.some((p) => Date.parse(p.at) < now)).toBe(true);
    expect(pickups.some((p) => Date.parse(p.at) > now && p.signedUp.length >= p.capacity)).toBe(true);
    expect(pickups.some((p) => Date.parse(p.at) > now && p.signedUp.length < p.capacity)).toBe(true);
  });

  it('lists quizzes with sessions of every status, contents, a region pin and a report with both users', () => {
    const statuses = new Set(summary.community.quizzes.flatMap((q) => q.sessions.map((s) => s.status)));
    expect([...statuses].sort()).toEqual([0, 1, 2]);
    expect(summary.community.contents.length).toBeGreaterThan(0);
    expect(summary.community.regionPins).toHaveLength(1);
    const [report] = summary.community.reports;
    expect(report!.reporter.id).not.toBe(report!.reported.id);
  });

  it('is served by the API to the demo users', async () => {
    const foodsaver = await logInAs(t.app, { email: 'foodsaver@example.org', password: DEMO_PASSWORD });
    const store = summary.community.stores[0]!;
    const posts = await call(t.app, 'GET', `/api/stores/${store.id}/posts`, foodsaver);
    expect(posts.statusCode).toBe(200);
    expect((posts.json() as unknown[]).length).toBe(store.posts.length);
    const me = summary.users.find((u) => u.email === 'foodsaver@example.org')!;
    const quiz = await call(t.app, 'GET', `/api/quiz/sessions/${me.id}`, foodsaver);
    expect((quiz.json() as unknown[]).length).toBeGreaterThan(0);
    const pin = summary.community.regionPins[0]!;
    expect((await call(t.app, 'GET', `/api/region/${pin.regionId}/pin`, foodsaver)).json()).toMatchObject({ status: 1 });
    const free = store.pickups.find((p) => Date.parse(p.at) > Date.now() && p.signedUp.length < p.capacity && !p.signedUp.some((x) => x.userId === me.id))!;
    const signup = await call(t.app, 'POST', `/api/stores/${store.id}/pickups/${free.at}/${me.id}`, foodsaver);
    expect(signup.statusCode, signup.body).toBe(200);
  });
});
