/**
 * Forum subscriptions (PUT/GET /api/regions/{regionId}/forum/subscriptions)
 * and PATCH /api/notifications/regions: the same per-region setting.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { digestSessionId } from '../../src/accounts/sessions.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makeRegion, type TestUser } from '../helpers/factories.ts';
import type { TestSession } from '../helpers/session.ts';

const t = useTestApp();
let region: number;
let group: number;
let otherRegion: number;
let member: TestUser;
const s: Record<string, LoggedIn> = {};

beforeAll(async () => {
  region = await makeRegion(t.db);
  group = await makeRegion(t.db, { type: 'working-group', parentId: region });
  otherRegion = await makeRegion(t.db);
  s.member = await t.as('foodsaver', { regionIds: [region, group] });
  member = s.member.user;
  s.outsider = await t.as('ambassador', { regionIds: [otherRegion], ambassadorOf: [otherRegion] });
  s.orga = await t.as('orga');
});

const subscriptions = async (userId: number) =>
  (await t.db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute()).map((r) => r.region_id);
const subscribe = (session: TestSession | undefined, regionId: number | string, query: string) =>
  t.call('PUT', `/api/regions/${regionId}/forum/subscriptions${query}`, session);

describe('PUT /api/regions/{regionId}/forum/subscriptions', () => {
  it('lets a member follow and unfollow; GET reports {isFollowing}', async () => {
    const response = await subscribe(s.member, region, '?isFollowing=true');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await subscriptions(member.id)).toEqual([region]);
    const read = await t.call('GET', `/api/regions/${region}/forum/subscriptions`, s.member);
    expectKeys(read.json(), ['isFollowing']);
    expect(read.json()).toEqual({ isFollowing: true });
    expect((await subscribe(s.member, region, '?isFollowing=true')).statusCode).toBe(200);
    expect((await subscribe(s.member, region, '?isFollowing=false')).statusCode).toBe(200);
    expect(await subscriptions(member.id)).toEqual([]);
    expect((await t.call('GET', `/api/regions/${region}/forum/subscriptions`, s.member)).json()).toEqual({ isFollowing: false });
  });

  it('lets orga follow any region', async () => {
    expect((await subscribe(s.orga, otherRegion, '?isFollowing=true')).statusCode).toBe(200);
    expect((await t.call('GET', `/api/regions/${otherRegion}/forum/subscriptions`, s.orga)).json()).toEqual({ isFollowing: true });
  });

  it('answers 401, 403 (CSRF, non-member), 404 unknown region, 400 without or with a bad isFollowing; writes nothing', async () => {
    expectProblem(await subscribe(undefined, region, '?isFollowing=true'), 401, 'auth.unauthenticated');
    expectProblem(await t.app.inject({ method: 'PUT', url: `/api/regions/${region}/forum/subscriptions?isFollowing=true`, headers: { cookie: s.member!.cookie } }), 403, 'auth.csrf-invalid');
    expectProblem(await subscribe(s.outsider, region, '?isFollowing=true'), 403, 'region.forbidden');
    expectProblem(await subscribe(s.outsider, region, ''), 403, 'region.forbidden');
    expectProblem(await subscribe(s.member, 999_999, ''), 404, 'region.not-found');
    for (const query of ['', '?isFollowing=', '?isFollowing=maybe', '?isfollowing=true', '?isFollowing=true&notify=1', '?isFollowing[]=true']) {
      expectProblem(await subscribe(s.member, region, query), 400, 'request.invalid');
    }
    const unknown = await subscribe(s.member, region, '?isFollowing=true&notify=1');
    expect(unknown.json().errors).toEqual([{ field: 'querystring/notify', message: 'is not a parameter of this operation' }]);
    expectProblem(await t.call('GET', `/api/regions/${region}/forum/subscriptions`, s.outsider), 403, 'region.forbidden');
    expectProblem(await t.call('GET', `/api/regions/${region}/forum/subscriptions`), 401);
    expect(await subscriptions(member.id)).toEqual([]);
    for (const bad of BAD_IDS) {
      const response = await subscribe(s.orga, bad, '?isFollowing=true');
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});

describe('PATCH /api/notifications/regions', () => {
  const patch = (session: TestSession | undefined, payload: unknown) => t.call('PATCH', '/api/notifications/regions', session, payload);

  it('updates every listed region and working group in one go', async () => {
    const response = await patch(s.member, [{ id: region, notifyByEmailAboutNewThreads: true }, { id: group, notifyByEmailAboutNewThreads: true }]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await subscriptions(member.id)).toEqual([region, group]);
    expect((await patch(s.member, [{ id: group, notifyByEmailAboutNewThreads: false }])).statusCode).toBe(200);
    expect(await subscriptions(member.id)).toEqual([region]);
    expect((await patch(s.member, [])).statusCode).toBe(200);
    expect(await subscriptions(member.id)).toEqual([region]);
  });

  it('takes settings sent at once from ten tabs one after the other: every answer 200, none a deadlock\'s 503 (truly concurrent on PostgreSQL)', async () => {
    const third = await makeRegion(t.db);
    const tabs = await t.as('foodsaver', { regionIds: [region, group, third] });
    const regions = [region, group, third];
    const statuses: number[] = [];
    for (let round = 0; round < 20; round++) {
      if (round % 2 === 0) await t.db.deleteFrom('forum_subscriptions').where('user_id', '=', tabs.user.id).execute();
      // Ten tabs, each switching the three regions on and off in its own way.
      const answers = await Promise.all(Array.from({ length: 10 }, (_, tab) =>
        patch(tabs, regions.map((id, i) => ({ id, notifyByEmailAboutNewThreads: ((tab >> i) & 1) === 1 })))));
      statuses.push(...answers.map((a) => a.statusCode));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Two tabs at once, each about its own region: both are applied.
    await t.db.deleteFrom('forum_subscriptions').where('user_id', '=', tabs.user.id).execute();
    const both = await Promise.all([region, third].map((id) => patch(tabs, [{ id, notifyByEmailAboutNewThreads: true }])));
    expect(both.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(await subscriptions(tabs.user.id)).toEqual([region, third].sort((a, b) => a - b));
  });

  it('answers 403 when logged out, without CSRF, or when any id is not a region of the caller; nothing changes', async () => {
    const change = [{ id: region, notifyByEmailAboutNewThreads: false }, { id: group, notifyByEmailAboutNewThreads: true }];
    expectProblem(await patch(undefined, change), 403, 'auth.forbidden');
    expectProblem(await t.app.inject({ method: 'PATCH', url: '/api/notifications/regions', headers: { cookie: s.member!.cookie }, payload: change }), 403, 'auth.csrf-invalid');
    for (const foreign of [otherRegion, 999_999, 0, -1, 2_147_483_648, 1e15]) {
      expectProblem(await patch(s.member, [...change, { id: foreign, notifyByEmailAboutNewThreads: true }]), 403, 'region.forbidden');
    }
    // A foreign region is refused before a region listed twice.
    expectProblem(await patch(s.member, [...change, ...change, { id: otherRegion, notifyByEmailAboutNewThreads: true }]), 403, 'region.forbidden');
    expect(await subscriptions(member.id)).toEqual([region]);
  });

  it('answers 400 for a malformed body and for a region listed twice, changing nothing', async () => {
    for (const bad of [{}, [{ id: region }], [{ id: 'x', notifyByEmailAboutNewThreads: true }], [{ id: 1.5, notifyByEmailAboutNewThreads: true }],
      [{ id: region, notifyByEmailAboutNewThreads: true }, { id: region, notifyByEmailAboutNewThreads: false }]]) {
      expectProblem(await patch(s.member, bad), 400, 'request.invalid');
    }
    expect(await subscriptions(member.id)).toEqual([region]);
  });

  it('answers 400 for an id JSON.parse reads as Infinity (1e309), before the membership check', async () => {
    for (const id of ['1e309', '-1e309']) {
      const response = await t.app.inject({
        method: 'PATCH', url: '/api/notifications/regions', headers: { ...s.member!.headers, 'content-type': 'application/json' },
        payload: `[{"id":${id},"notifyByEmailAboutNewThreads":true}]`,
      });
      expectProblem(response, 400, 'request.invalid');
      expect(response.json().errors).toEqual([{ field: 'body/0/id', message: 'must be integer' }]);
    }
    expect(await subscriptions(member.id)).toEqual([region]);
  });
});

/**
 * PATCH /api/notifications/regions reads the session and checks the CSRF token in the statement that
 * writes (api/actor.ts `inCheckedSessionStatement`): the answers and their order are those of every
 * other route, and nothing is written unless the session is live and the token is its own.
 */
describe('PATCH /api/notifications/regions with the session in the same statement', () => {
  const change = () => [{ id: region, notifyByEmailAboutNewThreads: true }, { id: group, notifyByEmailAboutNewThreads: true }];
  const send = (headers: Record<string, string>, payload: unknown, contentType = 'application/json') => t.app.inject({
    method: 'PATCH', url: '/api/notifications/regions', headers: { ...headers, 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  const digestOf = (who: TestSession) => digestSessionId(/fs_session=([^;]+)/.exec(who.cookie)![1]!);
  const sessionRow = (who: TestSession) => t.db.selectFrom('sessions').select('last_seen_at').where('id_digest', '=', digestOf(who)).executeTakeFirstOrThrow();

  it('answers 403 auth.forbidden for a cookie of no session, an expired or ended session, or a disabled member, before 400; writes nothing', async () => {
    const who = await t.as('foodsaver', { regionIds: [region, group] });
    const none = { cookie: `fs_session=${'A'.repeat(43)}`, 'x-csrf-token': who.csrfToken };
    for (const payload of [change(), {}, '{not json']) expectProblem(await send(none, payload), 403, 'auth.forbidden');
    expectProblem(await send(none, '<a/>', 'application/xml'), 403, 'auth.forbidden');

    const expired = await t.as('foodsaver', { regionIds: [region, group] });
    await t.db.updateTable('sessions').set({ expires_at: t.clock.now() }).where('id_digest', '=', digestOf(expired)).execute();
    expectProblem(await send(expired.headers, change()), 403, 'auth.forbidden');
    const ended = await t.as('foodsaver', { regionIds: [region, group] });
    expect((await t.call('POST', '/api/user/logout', ended)).statusCode).toBe(204);
    expectProblem(await send(ended.headers, change()), 403, 'auth.forbidden');
    const disabled = await t.as('foodsaver', { regionIds: [region, group] });
    await t.db.updateTable('users').set({ disabled_at: t.clock.now() }).where('id', '=', disabled.user.id).execute();
    expectProblem(await send(disabled.headers, change()), 403, 'auth.forbidden');
    for (const user of [who.user, expired.user, ended.user, disabled.user]) expect(await subscriptions(user.id)).toEqual([]);
  });

  it('answers 403 auth.csrf-invalid for another token, before 400 and before a region of another member; writes nothing', async () => {
    const who = await t.as('foodsaver', { regionIds: [region, group] });
    const other = await t.as('foodsaver', { regionIds: [region, group] });
    for (const token of [other.csrfToken, who.csrfToken.slice(0, -1), `${who.csrfToken}x`, ' ', 'ä']) {
      const headers = { cookie: who.cookie, 'x-csrf-token': token };
      expectProblem(await send(headers, change()), 403, 'auth.csrf-invalid');
      expectProblem(await send(headers, [{ id: otherRegion, notifyByEmailAboutNewThreads: true }]), 403, 'auth.csrf-invalid');
      expectProblem(await send(headers, [{ id: 'x' }]), 403, 'auth.csrf-invalid');
      expectProblem(await send(headers, '{not json'), 403, 'auth.csrf-invalid');
    }
    expect(await subscriptions(who.user.id)).toEqual([]);
    expect((await send(who.headers, change())).statusCode).toBe(200);
    expect(await subscriptions(who.user.id)).toEqual([region, group]);
  });

  it('refuses a region of another member before one listed twice, and one listed twice; writes nothing', async () => {
    const who = await t.as('foodsaver', { regionIds: [region, group] });
    const twice = [...change(), { id: region, notifyByEmailAboutNewThreads: false }];
    expectProblem(await send(who.headers, [...twice, { id: otherRegion, notifyByEmailAboutNewThreads: true }]), 403, 'region.forbidden');
    expectProblem(await send(who.headers, twice), 400, 'request.invalid');
    expectProblem(await send(who.headers, '{not json'), 400, 'request.invalid');
    expectProblem(await send(who.headers, '<a/>', 'application/xml'), 415, 'request.unsupported-media-type');
    expect(await subscriptions(who.user.id)).toEqual([]);
  });

  it('records that the session is used, at most every five minutes, as any other request does', async () => {
    const who = await t.as('foodsaver', { regionIds: [region, group], rememberMe: true });
    const signedInAt = (await sessionRow(who)).last_seen_at;
    t.clock.advance(4 * 60);
    expect((await send(who.headers, change())).statusCode).toBe(200);
    expect((await sessionRow(who)).last_seen_at).toEqual(signedInAt);
    t.clock.advance(60);
    const now = t.clock.now();
    expectProblem(await send({ ...who.headers, 'x-csrf-token': 'wrong' }, change()), 403, 'auth.csrf-invalid');
    expect((await sessionRow(who)).last_seen_at.getTime()).toBeGreaterThanOrEqual(now.getTime());
  });
});
