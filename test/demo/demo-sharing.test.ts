import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../src/demo/demo-data.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { logInAs } from '../helpers/session.ts';

const t = useTestApp();
let demo: DemoSummary;

beforeAll(async () => {
  demo = await loadDemoData(t.db);
});

describe('demo dataset: sharing areas', () => {
  it('has a basket with an open and a withdrawn request, served by the API', async () => {
    const [bread] = demo.sharing.baskets;
    expect(bread!.requests.map((r) => r.status)).toEqual([0, 5]);
    const session = await logInAs(t.app, { email: bread!.requests[0]!.user.email, password: DEMO_PASSWORD });
    const response = await t.app.inject({ url: `/api/baskets/${bread!.id}`, headers: { cookie: session.cookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: bread!.id, requestCount: 1, creator: { id: bread!.creator.id } });
  });

  it('has a poll that has not started (editable by its author) and one that has', async () => {
    const [future, running] = demo.sharing.polls;
    expect(future!.hasStarted).toBe(false);
    expect(running!.hasStarted).toBe(true);
    const author = await logInAs(t.app, { email: future!.author.email, password: DEMO_PASSWORD });
    const patch = (id: number) => t.app.inject({ method: 'PATCH', url: `/api/polls/${id}`, headers: author.headers, payload: { name: 'Neu' } });
    expect((await patch(future!.id)).statusCode).toBe(200);
    expect((await patch(running!.id)).statusCode).toBe(403);
  });

  it('has the feature toggles, petitionBanner switched on', async () => {
    expect(demo.sharing.featureToggles).toContainEqual({ identifier: 'petitionBanner', isActive: true });
    const response = await t.app.inject({ url: '/api/feature-toggles' });
    expect(response.json()).toEqual(demo.sharing.featureToggles);
  });
});
