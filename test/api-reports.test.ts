/** DELETE /api/report/{reportId} (SPEC-API: orga, but not the reported user). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { BAD_IDS, call, expectProblem } from './helpers/community-api.ts';
import { makeReport } from './helpers/community-factories.ts';
import { makeUser, type TestUser } from './helpers/factories.ts';
import { logInAs, type TestSession } from './helpers/session.ts';

let t: TestApp;
let reporter: TestUser;
let orga: TestUser;
let reportedOrga: TestUser;
const s: Record<string, TestSession> = {};

beforeAll(async () => {
  t = await buildTestApp();
  reporter = await makeUser(t.db, { role: 'ambassador' });
  orga = await makeUser(t.db, { role: 'orga' });
  reportedOrga = await makeUser(t.db, { role: 'orga' });
  s.reporter = await logInAs(t.app, reporter);
  s.orga = await logInAs(t.app, orga);
  s.reportedOrga = await logInAs(t.app, reportedOrga);
});

afterAll(async () => { await t?.close(); });

const reportExists = async (id: number) =>
  (await t.db.selectFrom('reports').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

describe('DELETE /api/report/{reportId}', () => {
  it('lets orga delete a report', async () => {
    const id = await makeReport(t.db, reporter.id, reportedOrga.id);
    const response = await call(t.app, 'DELETE', `/api/report/${id}`, s.orga);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await reportExists(id)).toBe(false);
    expectProblem(await call(t.app, 'DELETE', `/api/report/${id}`, s.orga), 404, 'report.not-found');
  });

  it('refuses the reported orga member, non-orga, anonymous and CSRF-less calls; deletes nothing', async () => {
    const id = await makeReport(t.db, reporter.id, reportedOrga.id);
    expectProblem(await call(t.app, 'DELETE', `/api/report/${id}`), 401, 'auth.unauthenticated');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/report/${id}`, headers: { cookie: s.orga!.cookie } }), 403, 'auth.csrf-invalid');
    expectProblem(await call(t.app, 'DELETE', `/api/report/${id}`, s.reportedOrga), 403, 'report.forbidden');
    expectProblem(await call(t.app, 'DELETE', `/api/report/${id}`, s.reporter), 403, 'report.forbidden');
    expect(await reportExists(id)).toBe(true);
  });

  it('answers 404 for unknown reports and 400/404 for malformed ids, never 500', async () => {
    expectProblem(await call(t.app, 'DELETE', '/api/report/999999', s.orga), 404, 'report.not-found');
    for (const bad of BAD_IDS) {
      const response = await call(t.app, 'DELETE', `/api/report/${bad}`, s.orga);
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});
