/**
 * A JSON body that gives a name twice in one object, or escapes half a
 * surrogate pair, is a 400 naming the field (src/http/json-text.ts), in the
 * order of every invalid body (after 404 and 403), and changes nothing:
 * `JSON.parse` kept the last value, and stored U+FFFD for the half pair.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type LoggedIn } from '../../helpers/fixture.ts';
import { makeUser } from '../../helpers/factories.ts';
import { createBasketAs, makeBasketPeople } from '../basket-people.ts';

const t = useTestApp();
let creator: LoggedIn;
let other: LoggedIn;
beforeAll(async () => {
  ({ creator, other } = await makeBasketPeople(t));
});
const JSON_TYPE = { 'content-type': 'application/json' };
const description = async (id: number) => (await t.db.selectFrom('baskets').select('description').where('id', '=', id).executeTakeFirstOrThrow()).description;

describe('a JSON body a strict reading refuses', () => {
  it('a name given twice: 400 naming it, nothing written', async () => {
    const id = await createBasketAs(t, creator);
    const before = await description(id);
    const answer = await t.call('PATCH', `/api/baskets/${id}`, creator, '{"description":"first","description":"second"}', JSON_TYPE);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      type: 'about:blank', title: 'Bad Request', status: 400, code: 'request.invalid',
      detail: 'The request body gives a name twice in one object.', errors: [{ field: 'body/description', message: 'is given more than once' }],
    });
    expect(await description(id)).toBe(before);
  });

  it('an escape of half a surrogate pair: 400 naming the field, nothing written; a whole pair is stored', async () => {
    const id = await createBasketAs(t, creator);
    const before = await description(id);
    const answer = await t.call('PATCH', `/api/baskets/${id}`, creator, '{"description":"lone \\ud800 half"}', JSON_TYPE);
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      code: 'request.invalid', detail: 'The request body is not valid Unicode: an escape names half of a surrogate pair.',
      errors: [{ field: 'body/description', message: 'contains half of a surrogate pair (an escape in \\ud800–\\udfff without its other half)' }],
    });
    expect(await description(id)).toBe(before);
    const pair = await t.call('PATCH', `/api/baskets/${id}`, creator, '{"description":"a pair \\ud83d\\ude00"}', JSON_TYPE);
    expect(pair.statusCode).toBe(200);
    expect(await description(id)).toBe('a pair \u{1F600}');
  });

  it('comes after 404 and 403, as every invalid body does', async () => {
    const id = await createBasketAs(t, creator);
    const twice = '{"description":"a","description":"b"}';
    expect((await t.call('PATCH', '/api/baskets/999999', creator, twice, JSON_TYPE)).statusCode).toBe(404);
    expect((await t.call('PATCH', `/api/baskets/${id}`, other, twice, JSON_TYPE)).statusCode).toBe(403);
  });

  it('signs nobody in: the JSON login with the email given twice', async () => {
    const user = await makeUser(t.db);
    const payload = `{"email":"nobody@example.org","password":"x","email":${JSON.stringify(user.email)},"password":${JSON.stringify(user.password)}}`;
    const answer = await t.app.inject({ method: 'POST', url: '/api/user/login', payload, headers: JSON_TYPE });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().errors).toEqual([{ field: 'body/email', message: 'is given more than once' }]);
    expect(answer.cookies).toEqual([]);
    expect(await t.db.selectFrom('sessions').select('id_digest').where('user_id', '=', user.id).execute()).toEqual([]);
  });

  it('takes half a pair in an upload\'s file name only (test/api/uploads.test.ts), and no name twice there', async () => {
    const uploads = async () => (await t.db.selectFrom('uploads').select('uuid').execute()).length;
    const before = await uploads();
    const twice = await t.call('POST', '/api/uploads', creator, '{"filename":"a.txt","filename":"b.exe","body":"eA=="}', JSON_TYPE);
    expect(twice.statusCode).toBe(400);
    expect(twice.json().errors).toEqual([{ field: 'body/filename', message: 'is given more than once' }]);
    const halfInBody = await t.call('POST', '/api/uploads', creator, '{"filename":"a\\ud800.txt","body":"eA==","x":"\\udfff"}', JSON_TYPE);
    expect(halfInBody.statusCode).toBe(400);
    expect(halfInBody.json().errors).toEqual([{ field: 'body/x', message: 'contains half of a surrogate pair (an escape in \\ud800–\\udfff without its other half)' }]);
    expect(await uploads()).toBe(before);
  });
});
