/**
 * Preconditions on the operations that change a resource (RFC 9110 §13.1.1,
 * §13.1.2, §13.2.1): `/api` serves no entity tags for them, so an `If-Match`
 * naming a tag is false — 412 `request.precondition-failed`, nothing changed —
 * and `If-Match: *` true; `If-None-Match: *` is false for what exists. Checked
 * after 401, 403 and 404, as if the header were not there.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../helpers/api.ts';
import { makeRegion } from '../helpers/factories.ts';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { createBasketAs, VALID_BASKET } from './basket-people.ts';

const t = useTestApp();
let creator: LoggedIn;
let basketId: number;

const description = async () => (await t.db.selectFrom('baskets').select('description').where('id', '=', basketId).executeTakeFirstOrThrow()).description;

beforeAll(async () => {
  creator = await t.as('foodsharer', { firstName: 'Clara' });
  basketId = await createBasketAs(t, creator);
});

describe('If-Match and If-None-Match on a change', () => {
  it('If-Match naming a tag: 412, nothing changed; If-Match: * changes it', async () => {
    for (const ifMatch of ['"definitely-not-the-etag"', 'W/"1"', '"a", "b"']) {
      const refused = await t.call('PATCH', `/api/baskets/${basketId}`, creator, { description: 'Changed behind your back' }, { 'if-match': ifMatch });
      expectProblem(refused, 412, 'request.precondition-failed');
      expect(refused.json().title).toBe('Precondition Failed');
      expect(await description()).toBe(VALID_BASKET.description);
    }
    const changed = await t.call('PATCH', `/api/baskets/${basketId}`, creator, { description: 'Brot von heute' }, { 'if-match': '*' });
    expect(changed.statusCode).toBe(200);
    expect(await description()).toBe('Brot von heute');
  });

  it('If-None-Match: * is false for what exists; a tag is true', async () => {
    const refused = await t.call('PATCH', `/api/baskets/${basketId}`, creator, { description: 'Nope' }, { 'if-none-match': '*' });
    expectProblem(refused, 412, 'request.precondition-failed');
    expect(await description()).toBe('Brot von heute');
    const changed = await t.call('PATCH', `/api/baskets/${basketId}`, creator, { description: 'Brot von gestern' }, { 'if-none-match': '"x"' });
    expect(changed.statusCode).toBe(200);
  });

  it('comes after 401, 403 and 404: the answer the request would get without it', async () => {
    expect((await t.call('PATCH', `/api/baskets/${basketId}`, null, { description: 'x' }, { 'if-match': '"x"' })).statusCode).toBe(401);
    const stranger = await t.as('foodsaver');
    expect((await t.call('PATCH', `/api/baskets/${basketId}`, stranger, { description: 'x' }, { 'if-match': '"x"' })).statusCode).toBe(403);
    expect((await t.call('PATCH', '/api/baskets/999999', creator, { description: 'x' }, { 'if-match': '"x"' })).statusCode).toBe(404);
    expect(await description()).toBe('Brot von gestern');
  });

  it('a DELETE and the settings written in the session\'s own statement are refused the same way', async () => {
    const orga = await t.as('orga');
    const created = await t.call('POST', '/api/contents', orga, { name: 'n', title: 't', body: 'b' });
    const id = created.json().id as number;
    expectProblem(await t.call('DELETE', `/api/contents/${id}`, orga, undefined, { 'if-match': '"stale"' }), 412, 'request.precondition-failed');
    expect(await t.db.selectFrom('contents').select('id').where('id', '=', id).execute()).toEqual([{ id }]);

    const region = await makeRegion(t.db);
    const member = await t.as('foodsaver', { regionIds: [region] });
    const settings = [{ id: region, notifyByEmailAboutNewThreads: true }];
    expectProblem(await t.call('PATCH', '/api/notifications/regions', member, settings, { 'if-match': '"x"' }), 412, 'request.precondition-failed');
    const subscribed = () => t.db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', member.user.id).execute();
    expect(await subscribed()).toEqual([]);
    expect((await t.call('PATCH', '/api/notifications/regions', member, settings, { 'if-match': '*' })).statusCode).toBe(200);
    expect(await subscribed()).toEqual([{ region_id: region }]);
    // A region the member is not in: the 403 it gets without the header comes first.
    const foreign = await makeRegion(t.db);
    const refused = await t.call('PATCH', '/api/notifications/regions', member, [{ id: foreign, notifyByEmailAboutNewThreads: true }], { 'if-match': '"x"' });
    expect(refused.statusCode).toBe(403);
  });

  it('creating: a basket or an upload with If-Match naming a tag is 412, nothing made', async () => {
    const baskets = async () => (await t.db.selectFrom('baskets').select('id').where('creator_id', '=', creator.user.id).execute()).length;
    const before = await baskets();
    expectProblem(await t.call('POST', '/api/baskets', creator, VALID_BASKET, { 'if-match': '"x"' }), 412, 'request.precondition-failed');
    expect(await baskets()).toBe(before);
    const uploads = async () => (await t.db.selectFrom('uploads').select('uuid').where('user_id', '=', creator.user.id).execute()).length;
    const stored = await uploads();
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    expectProblem(await t.call('POST', '/api/uploads', creator, { filename: 'a.png', body: png }, { 'if-none-match': '*' }), 412, 'request.precondition-failed');
    expect(await uploads()).toBe(stored);
    expect((await t.call('POST', '/api/baskets', creator, VALID_BASKET, { 'if-match': '*' })).statusCode).toBe(201);
  });
});
