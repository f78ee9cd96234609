import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { makeUser } from './helpers/factories.ts';
import { logInAs, type TestSession } from './helpers/session.ts';

// Shared request validation under /api: exact JSON types, every bad field named, long paths.
let t: TestApp;
let orga: TestSession;
beforeAll(async () => {
  t = await buildTestApp();
  orga = await logInAs(t.app, await makeUser(t.db, { role: 'orga' }));
});
afterAll(() => t.close());

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

  it('answers an over-long path parameter with 400 problem+json, not 414 or 500', async () => {
    for (const url of ['/api/contents/' + '1'.repeat(300), '/api/stores/1/posts/' + '9'.repeat(5000)]) {
      const response = await t.app.inject({ method: 'DELETE', url, headers: orga.headers });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 400, code: 'request.invalid', detail: 'A path parameter is too long.' });
    }
  });
});
