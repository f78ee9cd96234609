/**
 * Editing a basket (SPEC-API PATCH): the creator only, read-only and unknown
 * fields, pictures that must be the creator's image uploads, baskets that can
 * no longer change, and what is and is not written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type LoggedIn } from '../helpers/fixture.ts';
import { createBasketAs, makeBasketPeople, VALID_BASKET as valid } from './basket-people.ts';

const t = useTestApp();
let creator: LoggedIn;
let creatorId: number;
let other: LoggedIn;
let otherId: number;
let ownPicture: string;
let othersPicture: string;
let ownDocument: string;

beforeAll(async () => {
  ({ creator, creatorId, other, otherId, ownPicture, othersPicture, ownDocument } = await makeBasketPeople(t));
});

const createBasket = (overrides?: Record<string, unknown>) => createBasketAs(t, creator, overrides);
const basketRow = (id: number) => t.db.selectFrom('baskets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('PATCH /api/baskets/{basketId}', () => {
  it('answers one entry per offending field, however many of its rules the value breaks', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    const answer = await t.call('PATCH', `/api/baskets/${id}`, creator, { weightInGrams: -1.5, contactTypes: [['1']], description: '\u0000'.repeat(5001) });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().errors).toEqual([
      { field: 'body/description', message: 'must NOT have more than 5000 characters' },
      { field: 'body/contactTypes/0/0', message: 'must be integer' },
      { field: 'body/weightInGrams', message: 'must be integer' },
    ]);
    expect(await basketRow(id)).toEqual(before);
    // A text rule is said in words, not as its regular expression.
    const nul = await t.call('PATCH', `/api/baskets/${id}`, creator, { description: 'a\u0000b' });
    expect(nul.json().errors).toEqual([{ field: 'body/description', message: 'must not contain the NUL character (U+0000)' }]);
  });

  it('keeps every field of partial edits sent at once: none undoes another', async () => {
    // Without the row lock this fails on PostgreSQL (TEST_DATABASE_URL), whose connections interleave the statements.
    for (let round = 0; round < 5; round += 1) {
      const id = await createBasket({ description: 'orig', weightInGrams: 1 });
      const edits = [{ description: `new ${round}` }, { weightInGrams: 4242 + round }, { telephone: `030 ${round}` }, { lat: 50 + round }];
      const answers = await Promise.all(edits.map((edit) => t.call('PATCH', `/api/baskets/${id}`, creator, edit)));
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
      const row = await basketRow(id);
      expect({ description: row.description, weightInGrams: row.weight_in_grams, telephone: row.telephone, lat: row.lat })
        .toEqual({ description: `new ${round}`, weightInGrams: 4242 + round, telephone: `030 ${round}`, lat: 50 + round });
    }
  });

  it('lets the creator edit; read-only fields are ignored and until never moves', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    t.clock.advance(3600);
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, {
      id: 999, status: 5, until: '2030-01-01T00:00:00Z', created: 'x', requestCount: 77, creator: { id: otherId },
      location: { lat: 0, lon: 0 }, updated: null,
      description: '  Gemüsekiste  ', contactTypes: [1], mobile: null, telephone: '030 1234', lifeTimeInDays: 21,
      weightInGrams: 0, lat: -90, lon: 180, pictures: [ownPicture],
    });
    expect(response.statusCode).toBe(200);
    const basket = response.json();
    expect(basket).toMatchObject({
      id, status: 1, description: 'Gemüsekiste', contactTypes: [1], mobile: null, telephone: '030 1234', lifeTimeInDays: 21,
      weightInGrams: 0, lat: -90, lon: 180, location: { lat: -90, lon: 180 }, pictures: [ownPicture], requestCount: 0,
      creator: { id: creatorId },
    });
    expect(basket.until).toBe(before.until.toISOString());
    expect(Date.parse(basket.updated)).toBeGreaterThan(before.updated_at.getTime());
    expect((await basketRow(id)).until).toEqual(before.until);
  });

  it.each([
    ['an empty body', {}],
    ['only read-only fields', { id: 1, status: 5, updated: '2030-01-01T00:00:00Z', requestCount: 3 }],
    ['the basket sent back as it is', null],
  ])('answers %s with the basket unchanged and writes nothing (updated stays)', async (_name, body) => {
    const id = await createBasket();
    const before = await basketRow(id);
    t.clock.advance(60);
    const payload = body ?? (await t.call('GET', `/api/baskets/${id}`, creator)).json();
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, payload);
    expect(response.statusCode).toBe(200);
    expect(response.json().updated).toBe(before.updated_at.toISOString());
    expect(await basketRow(id)).toEqual(before);
  });

  it('refuses unknown fields with 400 naming each one, and writes nothing', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    t.clock.advance(60);
    for (const payload of [{ descripton: 'typo' }, { foo: 1, description: 'Neu' }]) {
      const response = await t.call('PATCH', `/api/baskets/${id}`, creator, payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request.invalid' });
      expect(response.json().errors).toContainEqual({ field: `body/${Object.keys(payload)[0]}`, message: 'is not a field of this operation' });
    }
    expect(await basketRow(id)).toEqual(before);
  });

  it('reports every refused field in one answer: a contact type listed twice with the other rules', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { description: ' ', contactTypes: [1, 1], mobile: 'abc' });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      { field: 'body/contactTypes', message: 'must not list a contact type twice' },
      { field: 'body/description', message: 'must not be empty' },
      { field: 'body/mobile', message: 'may contain only digits, spaces, - and /, and a leading +' },
    ]);
    const same = await t.call('PATCH', `/api/baskets/${id}`, creator, { contactTypes: [1, 1] });
    expect(same.json().errors).toEqual([{ field: 'body/contactTypes', message: 'must not list a contact type twice' }]);
    expect(await basketRow(id)).toEqual(before);
  });

  it('reports a field that may take several shapes once, saying what is wrong with it', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    const cases: Array<[Record<string, unknown>, Array<{ field: string; message: string }>]> = [
      [{ mobile: 123 }, [{ field: 'body/mobile', message: 'must be string or null' }]],
      [{ telephone: false, mobile: {} }, [
        { field: 'body/mobile', message: 'must be string or null' }, { field: 'body/telephone', message: 'must be string or null' }]],
      [{ mobile: '1'.repeat(51) }, [{ field: 'body/mobile', message: 'must NOT have more than 50 characters' }]],
      [{ contactTypes: ['x'] }, [{ field: 'body/contactTypes/0', message: 'must be integer or array' }]],
      [{ contactTypes: [3] }, [{ field: 'body/contactTypes/0', message: 'must be equal to one of the allowed values' }]],
      [{ contactTypes: [[3]] }, [{ field: 'body/contactTypes/0/0', message: 'must be equal to one of the allowed values' }]],
    ];
    for (const [payload, errors] of cases) {
      const response = await t.call('PATCH', `/api/baskets/${id}`, creator, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().errors, JSON.stringify(payload)).toEqual(errors);
    }
    expect(await basketRow(id)).toEqual(before);
  });

  it('accepts the seed\'s array-of-arrays form of contactTypes, stored as integers', async () => {
    const id = await createBasket();
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { contactTypes: [[1], [2]] });
    expect(response.statusCode).toBe(200);
    expect(response.json().contactTypes).toEqual([1, 2]);
  });

  it('keeps fields that the body omits', async () => {
    const id = await createBasket();
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { weightInGrams: 250 });
    expect(response.json()).toMatchObject({ description: valid.description, contactTypes: [1, 2], mobile: valid.mobile, weightInGrams: 250 });
  });

  it.each([
    ['empty description', { description: '   ' }, 'body/description'],
    ['a NUL character in the description', { description: 'Brot\u0000' }, 'body/description'],
    ['no contact type', { contactTypes: [] }, 'body/contactTypes'],
    ['unknown contact type', { contactTypes: [3] }, 'body/contactTypes/0'],
    ['repeated contact type', { contactTypes: [1, 1] }, 'body/contactTypes'],
    ['contact arrays holding two types', { contactTypes: [[1, 2]] }, 'body/contactTypes/0'],
    ['phone contact without mobile', { contactTypes: [2], mobile: '' }, 'body/mobile'],
    ['a letter in the mobile number', { mobile: '0170 12a' }, 'body/mobile'],
    ['+ inside the telephone number', { telephone: '030+1' }, 'body/telephone'],
    ['latitude over 90', { lat: 90.5 }, 'body/lat'],
    ['longitude under -180', { lon: -180.1 }, 'body/lon'],
    ['weight over 100000', { weightInGrams: 100001 }, 'body/weightInGrams'],
    ['negative weight', { weightInGrams: -1 }, 'body/weightInGrams'],
    ['lifetime 0', { lifeTimeInDays: 0 }, 'body/lifeTimeInDays'],
    ['lifetime 22', { lifeTimeInDays: 22 }, 'body/lifeTimeInDays'],
    ['someone else\'s upload', { pictures: () => [othersPicture] }, 'body/pictures/0'],
    ['an own upload that is no image', { pictures: () => [ownPicture, ownDocument] }, 'body/pictures/1'],
    ['a foreign URL', { pictures: ['https://evil.example/x.jpg'] }, 'body/pictures/0'],
    ['an unknown upload', { pictures: ['/api/uploads/8a1c2f5e-3b4d-4c6e-9f00-112233445566'] }, 'body/pictures/0'],
  ])('refuses %s with 400 and changes nothing', async (_name, change, field) => {
    const id = await createBasket();
    const before = await basketRow(id);
    const body = Object.fromEntries(Object.entries(change).map(([k, v]) => [k, typeof v === 'function' ? v() : v]));
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, body);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await basketRow(id)).toEqual(before);
    const create = await t.call('POST', '/api/baskets', creator, { ...valid, ...body });
    expect(create.statusCode).toBe(400);
  });

  it('takes an upload\'s URL with its uuid in capitals (as GET /api/uploads takes it), and stores and answers it in lower case', async () => {
    const id = await createBasket();
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { pictures: [ownPicture.toUpperCase().replace('/API/UPLOADS/', '/api/uploads/')] });
    expect(response.statusCode).toBe(200);
    expect(response.json().pictures).toEqual([ownPicture]);
    expect((await basketRow(id)).pictures).toEqual([ownPicture]);
    // So does a new basket; the path itself stays case-sensitive, as the router is.
    const created = await t.call('POST', '/api/baskets', creator, { ...valid, pictures: [ownPicture.replace(/[0-9a-f-]{36}$/, (uuid) => uuid.toUpperCase())] });
    expect(created.statusCode).toBe(201);
    expect(created.json().pictures).toEqual([ownPicture]);
    const path = await t.call('PATCH', `/api/baskets/${id}`, creator, { pictures: [ownPicture.toUpperCase()] });
    expect(path.statusCode).toBe(400);
  });

  it('names why a picture is refused: not one of the caller\'s uploads, or not an image', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    expect((await t.db.selectFrom('uploads').select('mime_type').where('uuid', '=', ownDocument.split('/').pop()!).executeTakeFirstOrThrow()).mime_type)
      .toBe('application/pdf');
    const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { pictures: [ownDocument, othersPicture, ownPicture] });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors).toEqual([
      { field: 'body/pictures/0', message: 'must be an image upload, not application/pdf' },
      { field: 'body/pictures/1', message: 'must be the URL of one of your own uploads (/api/uploads/<uuid>)' },
    ]);
    expect(await basketRow(id)).toEqual(before);
  });

  it('answers 403 to anyone but the creator (before looking at the body), changing nothing', async () => {
    const id = await createBasket();
    const before = await basketRow(id);
    for (const body of [{ description: 'Mine now' }, { lat: 1000 }]) {
      const response = await t.call('PATCH', `/api/baskets/${id}`, other, body);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'basket.forbidden' });
    }
    expect(await basketRow(id)).toEqual(before);
  });

  it('answers 404 for unknown, deleted, picked-up and expired baskets', async () => {
    const deleted = await createBasket();
    const pickedUp = await createBasket();
    const expiring = await createBasket({ lifeTimeInDays: 1 });
    await t.db.updateTable('baskets').set({ status: 5 }).where('id', '=', deleted).execute();
    await t.db.updateTable('baskets').set({ status: 2 }).where('id', '=', pickedUp).execute();
    expect((await t.call('PATCH', `/api/baskets/${expiring}`, creator, { weightInGrams: 1 })).statusCode).toBe(200);
    t.clock.advance(86_400 + 1);
    for (const id of [deleted, pickedUp, expiring, 2_147_483_647, '99999999999999999999999']) {
      const response = await t.call('PATCH', `/api/baskets/${id}`, creator, { lat: 1000 });
      expect(response.statusCode, String(id)).toBe(404);
      expect(response.json()).toMatchObject({ code: 'basket.not-found' });
    }
  });

  it('checks the path pattern before anything else but login and CSRF', async () => {
    for (const bad of ['0', '-1', 'abc', '1.5', '0x10', '1e3']) {
      expect((await t.call('PATCH', `/api/baskets/${bad}`, creator, { description: 'x' })).statusCode, bad).toBe(400);
    }
    expect((await t.call('PATCH', '/api/baskets/abc', null, {})).statusCode).toBe(401);
  });
});
