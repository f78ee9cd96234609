/**
 * Store managers (SPEC-API): who may appoint whom, every listed status code,
 * what is and is not written.
 */
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { BAD_IDS, expectProblem } from '../helpers/api.ts';
import { makeStore } from '../helpers/api-factories.ts';
import { makeUser } from '../helpers/factories.ts';
import { useStoreTeam } from './store-team.ts';

const t = useTestApp();
const setup = useStoreTeam(t);
const { sessions, id, storeLog } = setup;

describe('POST /api/stores/{storeId}/managers/{userId}', () => {
  const url = (userId: number | string, store: number | string = setup.storeId) => `/api/stores/${store}/managers/${userId}`;
  const team = (store: number) => t.db.selectFrom('store_team').select(['user_id', 'role']).where('store_id', '=', store).orderBy('user_id').execute();

  it('answers 401 when logged out, 404 for an unknown store, 403 to members, standby and outsiders', async () => {
    expectProblem(await t.call('POST', url(id('candidate'))), 401);
    expectProblem(await t.call('POST', url(id('candidate'), 999_999), sessions.orga), 404, 'store.not-found');
    for (const who of ['member', 'standby', 'outsider', 'foreignAmbassador']) {
      expectProblem(await t.call('POST', url(id('candidate')), sessions[who]), 403, 'store.forbidden');
    }
    expect((await team(setup.storeId)).some((r) => r.user_id === id('candidate'))).toBe(false);
  });

  it('lets a manager make a store manager a team member and manager, and logs it', async () => {
    const before = (await storeLog()).length;
    const response = await t.call('POST', url(id('candidate')), sessions.manager);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await team(setup.storeId)).toContainEqual({ user_id: id('candidate'), role: 'manager' });
    const log = (await storeLog()).slice(before);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ action: 'manager-appointed', acting_user_id: id('manager'), affected_user_id: id('candidate') });
  });

  it('answers 422 for an unknown user, an existing manager, a role below store manager, writing nothing', async () => {
    const before = await team(setup.storeId);
    const logBefore = (await storeLog()).length;
    expectProblem(await t.call('POST', url(999_999), sessions.manager), 422, 'store.user-not-found');
    expectProblem(await t.call('POST', url(2_147_483_648), sessions.manager), 422, 'store.user-not-found');
    expectProblem(await t.call('POST', url(id('candidate')), sessions.manager), 422, 'store.already-manager');
    expectProblem(await t.call('POST', url(id('foodsaverCandidate')), sessions.orga), 422, 'store.role-too-low');
    expect(await team(setup.storeId)).toEqual(before);
    expect(await storeLog()).toHaveLength(logBefore);
  });

  it('limits a store to 3 managers, except when orga or an ambassador of its region appoints', async () => {
    const store = await makeStore(t.db, setup.region, { manager: [id('manager'), id('manager2')], member: [id('member')] });
    expect((await t.call('POST', url(id('candidate'), store), sessions.manager)).statusCode).toBe(200);
    expectProblem(await t.call('POST', url(id('outsider'), store), sessions.manager2), 422, 'store.manager-limit');
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(3);
    expect((await t.call('POST', url(id('outsider'), store), sessions.ambassador)).statusCode).toBe(200);
    const orgaStore = await makeStore(t.db, setup.region, { manager: [id('manager'), id('manager2'), id('candidate')] });
    expect((await t.call('POST', url(id('outsider'), orgaStore), sessions.orga)).statusCode).toBe(200);
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(4);
    expect((await team(orgaStore)).filter((r) => r.role === 'manager')).toHaveLength(4);
  });

  it('never exceeds the limit when appointments race (a real race only on PostgreSQL: PGlite runs one transaction at a time)', async () => {
    const store = await makeStore(t.db, setup.region, { manager: [id('manager')] });
    const candidates = await Promise.all([1, 2, 3, 4].map(() => makeUser(t.db, { role: 'store-manager' })));
    const responses = await Promise.all(candidates.map((c) => t.call('POST', url(c.id, store), sessions.manager)));
    expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 200, 422, 422]);
    expect((await team(store)).filter((r) => r.role === 'manager')).toHaveLength(3);
  });

  it('answers 400/404 for ids that break [1-9][0-9]*, never 500', async () => {
    for (const bad of BAD_IDS) {
      for (const path of [url(bad), url(id('candidate'), bad)]) {
        const response = await t.call('POST', path, sessions.orga);
        expect([400, 404, 422], `${path}: ${response.body}`).toContain(response.statusCode);
        if (!bad.includes('%') && !/^\d+$/.test(bad) && bad !== '+1') expectProblem(response, 400, 'request.invalid');
      }
    }
  });
});
