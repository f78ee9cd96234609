/**
 * Store wall posts (SPEC-API): who may read and delete them, every listed
 * status code, what is and is not written to the store log.
 */
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { BAD_IDS, expectKeys, expectProblem } from '../helpers/api.ts';
import { makeStore, makeWallPost } from '../helpers/api-factories.ts';
import { DAY, useStoreTeam } from './store-team.ts';

const t = useTestApp();
const setup = useStoreTeam(t);
const { sessions, id, logInEveryoneAgain, storeLog } = setup;

describe('GET /api/stores/{storeId}/posts', () => {
  it('answers 401 when logged out', async () => {
    expectProblem(await t.call('GET', `/api/stores/${setup.storeId}/posts`), 401, 'auth.unauthenticated');
  });

  it('gives members, managers, orga and the region\'s ambassadors the 50 newest posts, newest first, in the seed\'s shape', async () => {
    const wallStore = await makeStore(t.db, setup.region, { member: [id('member')], manager: [id('manager')] });
    const base = t.clock.now().getTime() - 1000 * 60_000;
    for (let i = 0; i < 55; i++) await makeWallPost(t.db, wallStore, id(i % 2 ? 'member' : 'manager'), new Date(base + i * 60_000), `Post ${i}`);
    for (const who of ['member', 'manager', 'orga', 'ambassador']) {
      const response = await t.call('GET', `/api/stores/${wallStore}/posts`, sessions[who]);
      expect(response.statusCode, who).toBe(200);
      const posts = response.json() as Array<Record<string, any>>;
      expect(posts).toHaveLength(50);
      expect(posts[0]!.text).toBe('Post 54');
      expect(posts[49]!.text).toBe('Post 5');
    }
    const [first] = (await t.call('GET', `/api/stores/${wallStore}/posts`, sessions.member)).json() as Array<Record<string, any>>;
    expectKeys(first, ['id', 'foodsaverId', 'text', 'author', 'createdAt']);
    expectKeys(first!.author, ['id', 'name', 'avatar', 'sleepStatus']);
    expect(first).toMatchObject({ foodsaverId: id('manager'), author: { id: id('manager'), avatar: null, sleepStatus: 0 } });
    expect(first!.createdAt).toBe(new Date(base + 54 * 60_000).toISOString());
  });

  it('answers 403 to standby members, outsiders and ambassadors of other regions', async () => {
    for (const who of ['standby', 'outsider', 'foreignAmbassador']) {
      expectProblem(await t.call('GET', `/api/stores/${setup.storeId}/posts`, sessions[who]), 403, 'store.forbidden');
    }
  });

  it('answers 404 for an unknown store and 400/404 for malformed ids, never 500', async () => {
    expectProblem(await t.call('GET', '/api/stores/99999/posts', sessions.orga), 404, 'store.not-found');
    for (const bad of BAD_IDS) {
      const response = await t.call('GET', `/api/stores/${bad}/posts`, sessions.orga);
      expect([400, 404], `${bad}: ${response.body}`).toContain(response.statusCode);
    }
  });
});

describe('DELETE /api/stores/{storeId}/posts/{postId}', () => {
  const url = (postId: number, store = setup.storeId) => `/api/stores/${store}/posts/${postId}`;
  const postExists = async (postId: number) =>
    (await t.db.selectFrom('store_wall_posts').select('id').where('id', '=', postId).executeTakeFirst()) !== undefined;

  it('answers 401 when logged out and 403 without the CSRF token, deleting nothing', async () => {
    const postId = await makeWallPost(t.db, setup.storeId, id('member'), t.clock.now());
    expectProblem(await t.call('DELETE', url(postId)), 401);
    const noToken = await t.app.inject({ method: 'DELETE', url: url(postId), headers: { cookie: sessions.member!.cookie } });
    expectProblem(noToken, 403, 'auth.csrf-invalid');
    expect(await postExists(postId)).toBe(true);
  });

  it('lets the author delete their own post and writes a store-log entry', async () => {
    const createdAt = new Date(t.clock.now().getTime() - 60_000);
    const postId = await makeWallPost(t.db, setup.storeId, id('member'), createdAt, 'Bin heute später');
    const before = (await storeLog()).length;
    const response = await t.call('DELETE', url(postId), sessions.member);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(await postExists(postId)).toBe(false);
    const log = (await storeLog()).slice(before);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      store_id: setup.storeId, action: 'wall-post-deleted', acting_user_id: id('member'), affected_user_id: id('member'),
      content: 'Bin heute später', date_reference: createdAt,
    });
  });

  it('lets a store manager delete other people\'s posts only once they are older than one month', async () => {
    const postId = await makeWallPost(t.db, setup.storeId, id('member'), t.clock.now());
    const before = (await storeLog()).length;
    expectProblem(await t.call('DELETE', url(postId), sessions.manager), 403, 'store.forbidden');
    t.clock.advance(29 * DAY);
    await logInEveryoneAgain();
    expectProblem(await t.call('DELETE', url(postId), sessions.manager), 403, 'store.forbidden');
    expect(await postExists(postId)).toBe(true);
    expect(await storeLog()).toHaveLength(before);
    t.clock.advance(3 * DAY);
    await logInEveryoneAgain();
    expect((await t.call('DELETE', url(postId), sessions.manager)).statusCode).toBe(200);
    expect(await postExists(postId)).toBe(false);
  });

  it('refuses members, standby members and ambassadors other people\'s posts, however old', async () => {
    const postId = await makeWallPost(t.db, setup.storeId, id('member'), new Date(t.clock.now().getTime() - 400 * DAY * 1000));
    for (const who of ['member2', 'standby', 'ambassador', 'outsider']) {
      expectProblem(await t.call('DELETE', url(postId), sessions[who]), 403, 'store.forbidden');
    }
    expect(await postExists(postId)).toBe(true);
  });

  it('lets orga delete any post at once', async () => {
    const postId = await makeWallPost(t.db, setup.storeId, id('manager'), t.clock.now());
    expect((await t.call('DELETE', url(postId), sessions.orga)).statusCode).toBe(200);
    expect(await postExists(postId)).toBe(false);
  });

  it('answers 404 for an unknown post, a post of another store, an unknown store, and 400/404 for malformed ids', async () => {
    const otherStore = await makeStore(t.db, setup.region, { member: [id('member')] });
    const postId = await makeWallPost(t.db, otherStore, id('member'), t.clock.now());
    expectProblem(await t.call('DELETE', url(postId), sessions.orga), 404, 'store.post-not-found');
    expectProblem(await t.call('DELETE', url(999_999), sessions.orga), 404, 'store.post-not-found');
    expectProblem(await t.call('DELETE', url(postId, 999_999), sessions.orga), 404, 'store.not-found');
    expect(await postExists(postId)).toBe(true);
    for (const bad of BAD_IDS) {
      for (const path of [url(postId).replace(String(postId), bad), `/api/stores/${bad}/posts/${postId}`]) {
        const response = await t.call('DELETE', path, sessions.orga);
        expect([400, 404], `${path}: ${response.body}`).toContain(response.statusCode);
      }
    }
    expect(await postExists(postId)).toBe(true);
  });
});
