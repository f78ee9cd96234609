import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/fixture.ts';
import { makeUser } from '../../helpers/factories.ts';
import type { TestSession } from '../../helpers/session.ts';

// Shared request validation under /api: exact JSON types, every bad field named, long paths.
const t = useTestApp();
let orga: TestSession;
beforeAll(async () => {
  orga = await t.as('orga');
});

describe('/api validation', () => {
  it('does not coerce JSON body types: a number is not a string', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: 12345, password: ['x'] } });
    expect(response.statusCode).toBe(400);
    const fields = response.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['body/email', 'body/password']));
  });

  it('names every offending field, not just the first', async () => {
    const before = await t.db.selectFrom('contents').select('id').execute();
    const response = await t.app.inject({ method: 'POST', url: '/api/contents', headers: orga.headers, payload: { name: 1, title: false } });
    expect(response.statusCode).toBe(400);
    expect(response.json().errors.length).toBeGreaterThanOrEqual(3); // name, title, body
    expect(await t.db.selectFrom('contents').select('id').execute()).toEqual(before);
  });

  it('refuses form bodies with 415: no login CSRF from a cross-site HTML form, no change through a form', async () => {
    const user = await makeUser(t.db, { role: 'foodsaver' });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const login = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: form,
      payload: `email=${encodeURIComponent(user.email)}&password=${encodeURIComponent(user.password)}` });
    expect(login.statusCode).toBe(415);
    expect(login.json()).toMatchObject({ status: 415, code: 'request.unsupported-media-type' });
    expect(login.cookies).toEqual([]);
    const before = await t.db.selectFrom('contents').select('id').execute();
    const create = await t.app.inject({ method: 'POST', url: '/api/contents', headers: { ...orga.headers, ...form }, payload: 'name=a&title=b&body=c' });
    expect(create.statusCode).toBe(415);
    expect(await t.db.selectFrom('contents').select('id').execute()).toEqual(before);
    // A text/plain form cannot smuggle JSON either.
    const smuggled = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ email: user.email, password: user.password }) });
    expect(smuggled.statusCode).toBe(415);
    expect(smuggled.cookies).toEqual([]);
    // Nor reach an operation that takes no body: it has no schema that would refuse the text.
    const { id } = await t.db.insertInto('contents').values({ name: 'kept', title: 'Kept', body: 'b', last_modified: new Date() }).returning('id').executeTakeFirstOrThrow();
    const deleted = await t.app.inject({ method: 'DELETE', url: `/api/contents/${id}`, headers: { ...orga.headers, 'content-type': 'text/plain' }, payload: 'hi' });
    expect(deleted.statusCode).toBe(415);
    expect(deleted.json()).toMatchObject({ status: 415, code: 'request.unsupported-media-type' });
    expect(await t.db.selectFrom('contents').select('id').where('id', '=', id).execute()).toEqual([{ id }]);
    // An empty body is no body, whatever it is labelled (fetch labels `body: ''` text/plain).
    const empty = await t.app.inject({ method: 'DELETE', url: `/api/contents/${id}`, headers: { ...orga.headers, 'content-type': 'text/plain;charset=UTF-8' }, payload: '' });
    expect(empty.statusCode).toBe(200);
    expect(await t.db.selectFrom('contents').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('answers an over-long path parameter with 400 problem+json, not 414 or 500', async () => {
    for (const url of ['/api/contents/' + '1'.repeat(2049), '/api/stores/1/posts/' + '9'.repeat(5000)]) {
      const response = await t.app.inject({ method: 'DELETE', url, headers: orga.headers });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 400, code: 'request.invalid', detail: 'A path parameter is too long.' });
    }
  });
});

describe('empty JSON bodies', () => {
  it('a body-less DELETE with Content-Type: application/json is not a syntax error', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/contents', headers: orga.headers, payload: { name: 'n', title: 't', body: 'b' } });
    const { id } = created.json();
    const response = await t.app.inject({ method: 'DELETE', url: `/api/contents/${id}`, headers: { ...orga.headers, 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(await t.db.selectFrom('contents').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it('an operation that needs a body still answers 400 for an empty one', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/contents', headers: { ...orga.headers, 'content-type': 'application/json' }, payload: '' });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('request.invalid');
  });
});
