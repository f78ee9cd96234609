/**
 * DELETE /api/stores/{storeId}/posts/{postId} by a store manager: another
 * user's post may go once it is one calendar month old (`created + 1 month
 * ≤ now`), to the second, also across the end of a month, on a clock that
 * stands still.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixture.ts';
import { expectProblem } from '../helpers/api.ts';
import { FrozenClock } from '../helpers/clock.ts';
import { makeStore, makeWallPost } from '../helpers/api-factories.ts';
import { makeRegion, makeUser, type TestUser } from '../helpers/factories.ts';

const clock = new FrozenClock(new Date('2027-01-01T00:00:00Z'));
const t = useTestApp({ clock });
let manager: TestUser;
let member: TestUser;
let storeId: number;

beforeAll(async () => {
  const region = await makeRegion(t.db);
  manager = await makeUser(t.db, { role: 'store-manager', regionIds: [region] });
  member = await makeUser(t.db, { role: 'foodsaver', regionIds: [region] });
  storeId = await makeStore(t.db, region, { member: [member.id], manager: [manager.id] });
});

const postExists = async (postId: number) =>
  (await t.db.selectFrom('store_wall_posts').select('id').where('id', '=', postId).executeTakeFirst()) !== undefined;
const logEntries = async (text: string) => (await t.db.selectFrom('store_log').select('content')
  .where('action', '=', 'wall-post-deleted').where('content', '=', text).execute()).length;

describe('a store manager deleting another user\'s wall post', () => {
  it.each([
    ['in the middle of a month', '2027-03-15T08:30:00Z', '2027-04-15T08:29:59Z'],
    ['on January 31st (a month later is February 28th)', '2027-01-31T10:00:00Z', '2027-02-28T09:59:59Z'],
    ['on January 31st of a leap year (February 29th)', '2028-01-31T10:00:00Z', '2028-02-29T09:59:59Z'],
  ])('written %s: 403 one second before it is a calendar month old, 200 at that second', async (_when, createdAt, oneSecondBefore) => {
    const text = `written ${createdAt}`;
    const postId = await makeWallPost(t.db, storeId, member.id, new Date(createdAt), text);
    clock.set(oneSecondBefore);
    // Sessions last hours, the clock jumps months: log in at the new time.
    const session = await t.logIn(manager);
    expectProblem(await t.call('DELETE', `/api/stores/${storeId}/posts/${postId}`, session), 403, 'store.forbidden');
    expect(await postExists(postId)).toBe(true);
    expect(await logEntries(text)).toBe(0);

    clock.advance(1);
    const response = await t.call('DELETE', `/api/stores/${storeId}/posts/${postId}`, session);
    expect(response.statusCode, response.body).toBe(200);
    expect(await postExists(postId)).toBe(false);
    expect(await logEntries(text)).toBe(1);
  });

  it('is refused on February 28th of a leap year for a post of January 31st (a month is not 28 days)', async () => {
    const postId = await makeWallPost(t.db, storeId, member.id, new Date('2028-01-31T10:00:00Z'));
    clock.set('2028-02-28T10:00:00Z');
    const session = await t.logIn(manager);
    expectProblem(await t.call('DELETE', `/api/stores/${storeId}/posts/${postId}`, session), 403, 'store.forbidden');
    expect(await postExists(postId)).toBe(true);
  });
});
