/**
 * Baskets (SPEC-API): create, read, request and withdraw; every listed
 * status code and what is and is not written. Editing: baskets-edit.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { BASKET_KEYS, createBasketAs, makeBasketPeople, VALID_BASKET as valid } from './basket-people.ts';

const t = useTestApp();
let creator: LoggedIn;
let creatorId: number;
let other: LoggedIn;
let otherId: number;
let ownPicture: string;

beforeAll(async () => {
  ({ creator, creatorId, other, otherId, ownPicture } = await makeBasketPeople(t));
});

const createBasket = (overrides?: Record<string, unknown>) => createBasketAs(t, creator, overrides);
const requestRow = (basketId: number, userId: number) =>
  t.db.selectFrom('basket_requests').selectAll().where('basket_id', '=', basketId).where('user_id', '=', userId).executeTakeFirst();

describe('POST /api/baskets', () => {
  it('creates a basket that expires lifeTimeInDays from now and answers the whole basket', async () => {
    const now = t.clock.now().getTime();
    const response = await t.call('POST', '/api/baskets', creator, { ...valid, pictures: [ownPicture], telephone: '' });
    expect(response.statusCode).toBe(201);
    const basket = response.json();
    expect(Object.keys(basket).sort()).toEqual(BASKET_KEYS);
    expect(basket).toMatchObject({
      description: valid.description, pictures: [ownPicture], contactTypes: [1, 2], mobile: '+49 170/123-45', telephone: null,
      lat: 52.5, lon: 13.4, lifeTimeInDays: 3, weightInGrams: 1500, status: 1, location: { lat: 52.5, lon: 13.4 },
      creator: { id: creatorId, name: 'Clara', avatar: null, isSleeping: false }, requestCount: 0,
    });
    expect(Object.keys(basket.creator).sort()).toEqual(['avatar', 'id', 'isSleeping', 'name']);
    expect(Object.keys(basket.location).sort()).toEqual(['lat', 'lon']);
    const until = Date.parse(basket.until) - now;
    expect(until).toBeGreaterThanOrEqual(3 * 86_400_000 - 1000);
    expect(until).toBeLessThanOrEqual(3 * 86_400_000 + 1000);
    expect(basket.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    expect(response.headers.location).toBe(`/api/baskets/${basket.id}`);
  });

  it('answers 401 when logged out', async () => {
    expect((await t.call('POST', '/api/baskets', null, valid)).statusCode).toBe(401);
  });
});

describe('GET /api/baskets/{basketId}', () => {
  it('answers the basket, 404 for unknown or deleted ones, 400 for ids breaking [1-9][0-9]*, 401 logged out', async () => {
    const id = await createBasket();
    const response = await t.call('GET', `/api/baskets/${id}`, other);
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json()).sort()).toEqual(BASKET_KEYS);
    expect((await t.call('GET', `/api/baskets/${id}`, null)).statusCode).toBe(401);
    await t.db.updateTable('baskets').set({ status: 5 }).where('id', '=', id).execute();
    expect((await t.call('GET', `/api/baskets/${id}`, other)).statusCode).toBe(404);
    expect((await t.call('GET', '/api/baskets/999999', other)).statusCode).toBe(404);
    expect((await t.call('GET', `/api/baskets/${'9'.repeat(40)}`, other)).statusCode).toBe(404);
    for (const bad of ['0', '-1', 'abc', '1.5', '01', '1%20', '%2F1', '+1', '1%00', '%EF%BC%91', '%E2%80%8B1', '1e3', '0x1']) {
      expect((await t.call('GET', `/api/baskets/${bad}`, other)).statusCode, bad).toBe(400);
    }
  });
});

describe('POST /api/baskets/{basketId}/request and /withdraw', () => {
  it('requests, refuses a second request and one for the own basket (409), withdraws to status 5', async () => {
    const id = await createBasket();
    const requested = await t.call('POST', `/api/baskets/${id}/request`, other);
    expect(requested.statusCode).toBe(200);
    expect(requested.json().requestCount).toBe(1);
    expect((await requestRow(id, otherId))?.status).toBe(0);

    const again = await t.call('POST', `/api/baskets/${id}/request`, other);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'basket.already-requested' });
    const own = await t.call('POST', `/api/baskets/${id}/request`, creator);
    expect(own.statusCode).toBe(409);
    expect(own.json()).toMatchObject({ code: 'basket.own-basket' });

    await t.db.updateTable('basket_requests').set({ status: 1 }).where('basket_id', '=', id).execute();
    const withdrawn = await t.call('POST', `/api/baskets/${id}/withdraw`, other);
    expect(withdrawn.statusCode).toBe(200);
    expect(Object.keys(withdrawn.json()).sort()).toEqual(BASKET_KEYS);
    expect(withdrawn.json().requestCount).toBe(0);
    expect((await requestRow(id, otherId))?.status).toBe(5);

    const twice = await t.call('POST', `/api/baskets/${id}/withdraw`, other);
    expect(twice.statusCode).toBe(404);
    expect(twice.json()).toMatchObject({ code: 'basket.no-open-request' });
    expect((await t.call('POST', `/api/baskets/${id}/request`, other)).statusCode).toBe(200);
  });

  it('does not withdraw a request that the creator already answered', async () => {
    const id = await createBasket();
    await t.call('POST', `/api/baskets/${id}/request`, other);
    await t.db.updateTable('basket_requests').set({ status: 3 }).where('basket_id', '=', id).execute();
    expect((await t.call('POST', `/api/baskets/${id}/withdraw`, other)).statusCode).toBe(404);
    expect((await requestRow(id, otherId))?.status).toBe(3);
  });

  it('withdraw: \\d+ pattern (400), 404 for 0, huge and unavailable baskets, 401 logged out', async () => {
    const id = await createBasket({ lifeTimeInDays: 1 });
    await t.call('POST', `/api/baskets/${id}/request`, other);
    for (const bad of ['abc', '-1', '1.5', '%20']) {
      expect((await t.call('POST', `/api/baskets/${bad}/withdraw`, other)).statusCode, bad).toBe(400);
    }
    for (const missing of ['0', '00', '9'.repeat(30)]) {
      expect((await t.call('POST', `/api/baskets/${missing}/withdraw`, other)).statusCode, missing).toBe(404);
    }
    expect((await t.call('POST', `/api/baskets/${id}/withdraw`, null)).statusCode).toBe(401);
    t.clock.advance(86_400 + 1);
    expect((await t.call('POST', `/api/baskets/${id}/withdraw`, other)).statusCode).toBe(404);
    expect((await t.call('POST', `/api/baskets/${id}/request`, creator)).statusCode).toBe(404);
    expect((await requestRow(id, otherId))?.status).toBe(0);
  });
});
