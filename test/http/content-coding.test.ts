/**
 * A content-coded request body (`Content-Encoding: gzip`, or any coding) is
 * refused before anything reads it (src/http/content-coding.ts): 415 with
 * `Accept-Encoding: identity` in each vocabulary, and nothing written — it
 * used to be read as if it were not coded. `identity`, and the header on a
 * request without a body, are accepted.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { makeClient } from '../helpers/oauth.ts';
import { createBasketAs, makeBasketPeople } from '../api/basket-people.ts';

const t = useTestApp();
const DETAIL = 'Content-Encoding is not supported: send the request body uncompressed, without a Content-Encoding header.';
const sessionsOf = async (userId: number) => (await t.db.selectFrom('sessions').select('id_digest').where('user_id', '=', userId).execute()).length;

describe('a content-coded request body', () => {
  test('is 415 problem+json under /api, labelled plain or really compressed, and changes nothing', async () => {
    const { creator } = await makeBasketPeople(t);
    const id = await createBasketAs(t, creator);
    const description = async () => (await t.db.selectFrom('baskets').select('description').where('id', '=', id).executeTakeFirstOrThrow()).description;
    const before = await description();
    const json = JSON.stringify({ description: 'labelled gzip' });
    for (const [coding, payload] of [['gzip', json], ['gzip', gzipSync(json)], ['x-foo', json], ['identity, gzip', json]] as const) {
      const answer = await t.call('PATCH', `/api/baskets/${id}`, creator, payload, { 'content-type': 'application/json', 'content-encoding': coding });
      expect(answer.statusCode, coding).toBe(415);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(answer.headers['accept-encoding']).toBe('identity');
      expect(answer.json()).toEqual({ type: 'about:blank', title: 'Unsupported Media Type', status: 415, code: 'request.unsupported-media-type', detail: DETAIL });
    }
    expect(await description()).toBe(before);
    const identity = await t.call('PATCH', `/api/baskets/${id}`, creator, json, { 'content-type': 'application/json', 'content-encoding': 'identity' });
    expect(identity.statusCode).toBe(200);
    expect(await description()).toBe('labelled gzip');
  });

  test('signs nobody in through the JSON login', async () => {
    const user = await makeUser(t.db);
    const payload = JSON.stringify({ email: user.email, password: user.password });
    const answer = await t.app.inject({ method: 'POST', url: '/api/user/login', payload, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(answer.statusCode).toBe(415);
    expect(answer.json().code).toBe('request.unsupported-media-type');
    expect(answer.cookies).toEqual([]);
    expect(await sessionsOf(user.id)).toBe(0);
  });

  test('is 400 invalid_request at the OAuth endpoints, and the 415 page on the site\'s forms', async () => {
    const { clientId, secret } = await makeClient(t);
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: clientId, client_secret: secret! }).toString();
    const token = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: form, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' } });
    expect(token.statusCode).toBe(400);
    expect(token.headers['accept-encoding']).toBe('identity');
    expect(token.json()).toEqual({ error: 'invalid_request', error_description: DETAIL });

    const user = await makeUser(t.db);
    const login = await t.app.inject({
      method: 'POST', url: '/login', payload: new URLSearchParams({ email: user.email, password: user.password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'deflate' },
    });
    expect(login.statusCode).toBe(415);
    expect(login.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await sessionsOf(user.id)).toBe(0);
  });

  test('is no matter on a request without a body', async () => {
    const answer = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration', headers: { 'content-encoding': 'gzip' } });
    expect(answer.statusCode).toBe(200);
  });
});
