/** DELETE /api/report/{reportId} (SPEC-API: orga, but not the reported user). */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { BAD_IDS, expectProblem } from '../helpers/api.ts';
import { makeReport } from '../helpers/api-factories.ts';
import type { TestUser } from '../helpers/factories.ts';

const t = useTestApp();
let reporter: TestUser;
let reportedOrga: TestUser;
const s: Record<string, LoggedIn> = {};

beforeAll(async () => {
  s.reporter = await t.as('ambassador');
  s.orga = await t.as('orga');
  s.reportedOrga = await t.as('orga');
  [reporter, reportedOrga] = [s.reporter.user, s.reportedOrga.user];
});

const reportExists = async (id: number) =>
  (await t.db.selectFrom('reports').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

describe('DELETE /api/report/{reportId}', () => {
  it('lets orga delete a report', async () => {
    const id = await makeReport(t.db, reporter.id, reportedOrga.id);
    const response = await t.call('DELETE', `/api/report/${id}`, s.orga);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await reportExists(id)).toBe(false);
    expectProblem(await t.call('DELETE', `/api/report/${id}`, s.orga), 404, 'report.not-found');
  });

  it('refuses the reported orga member, non-orga, anonymous and CSRF-less calls; deletes nothing', async () => {
    const id = await makeReport(t.db, reporter.id, reportedOrga.id);
    expectProblem(await t.call('DELETE', `/api/report/${id}`), 401, 'auth.unauthenticated');
    expectProblem(await t.app.inject({ method: 'DELETE', url: `/api/report/${id}`, headers: { cookie: s.orga!.cookie } }), 403, 'auth.csrf-invalid');
    expectProblem(await t.call('DELETE', `/api/report/${id}`, s.reportedOrga), 403, 'report.forbidden');
    expectProblem(await t.call('DELETE', `/api/report/${id}`, s.reporter), 403, 'report.forbidden');
    expect(await reportExists(id)).toBe(true);
  });

  it('answers 404 for unknown reports and 400/404 for malformed ids, never 500', async () => {
    expectProblem(await t.call('DELETE', '/api/report/999999', s.orga), 404, 'report.not-found');
    for (const bad of BAD_IDS) {
      const response = await t.call('DELETE', `/api/report/${bad}`, s.orga);
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});
