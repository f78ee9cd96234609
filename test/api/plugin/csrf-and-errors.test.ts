import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../../helpers/factories.ts';
import { useTestApp } from '../../helpers/fixture.ts';
import { logInAs } from '../../helpers/session.ts';

const t = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t.db);
});

const countSessions = async () => (await t.db.selectFrom('sessions').select('id_digest').where('user_id', '=', user.id).execute()).length;

describe('CSRF on /api', () => {
  it('refuses a state-changing request without or with a wrong X-CSRF-Token and changes nothing', async () => {
    const session = await logInAs(t.app, user);
    const before = await countSessions();
    for (const headers of [{ cookie: session.cookie }, { cookie: session.cookie, 'x-csrf-token': 'wrong' }, { cookie: session.cookie, 'x-csrf-token': '' }]) {
      const response = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toEqual({
        type: 'about:blank', title: 'Forbidden', status: 403, code: 'auth.csrf-invalid',
        detail: 'Missing or wrong X-CSRF-Token header.',
      });
    }
    expect(await countSessions()).toBe(before);
    const ok = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: session.headers });
    expect(ok.statusCode).toBe(204);
    expect(await countSessions()).toBe(before - 1);
  });

  it('does not accept another session\'s token', async () => {
    const mine = await logInAs(t.app, user);
    const theirs = await logInAs(t.app, await makeUser(t.db));
    const response = await t.app.inject({ method: 'POST', url: '/api/user/logout', headers: { cookie: mine.cookie, 'x-csrf-token': theirs.csrfToken } });
    expect(response.statusCode).toBe(403);
  });

  it('exempts the login call itself and never needs a token for GET', async () => {
    const session = await logInAs(t.app, user);
    const relogin = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: { cookie: session.cookie },
      payload: { email: user.email, password: user.password } });
    expect(relogin.statusCode).toBe(200);
    const current = await t.app.inject({ url: '/api/user/current', headers: { cookie: relogin.cookies.map((c) => `${c.name}=${c.value}`).join('; ') } });
    expect(current.statusCode).toBe(200);
  });

  it('checks login before CSRF: logged out is 401', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/user/logout' });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('auth.unauthenticated');
  });
});

describe('errors', () => {
  it('answers unknown /api routes with 404 problem+json', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/api/does/not/exist?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'request.not-found',
      detail: 'No such operation: DELETE /api/does/not/exist' });
  });

  it('answers a method the path has no operation for with 405 and Allow, changing nothing', async () => {
    const session = await logInAs(t.app, user);
    const before = await countSessions();
    const response = await t.app.inject({ method: 'PUT', url: '/api/baskets/1?x=1', headers: session.headers, payload: {} });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, PATCH');
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toEqual({ type: 'about:blank', title: 'Method Not Allowed', status: 405, code: 'request.method-not-allowed',
      detail: 'PUT is not an operation of /api/baskets/1; it takes GET, HEAD, PATCH' });
    const logout = await t.app.inject({ method: 'GET', url: '/api/user/logout', headers: session.headers });
    expect(logout.statusCode).toBe(405);
    expect(logout.headers.allow).toBe('POST');
    expect(await countSessions()).toBe(before);
    expect((await t.app.inject({ method: 'PUT', url: '/api/baskets' })).headers.allow).toBe('POST');
    // A path the pattern of no operation matches stays a 404, whatever the method.
    expect((await t.app.inject({ method: 'PUT', url: '/api/basketz/1' })).statusCode).toBe(404);
    // A segment over the router's parameter limit names no operation's path, whatever follows it.
    const long = '1'.repeat(2049);
    for (const url of [`/api/baskets/${long}/no/such/thing`, `/api/baskets/${long}`]) {
      const response = await t.app.inject({ method: 'PUT', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers.allow, url).toBeUndefined();
    }
    // The limit is on the decoded segment, as the router measures a parameter: 700 encoded digits (2,100 characters sent) are an id.
    const encoded = await t.app.inject({ method: 'PUT', url: `/api/contents/${'%31'.repeat(700)}` });
    expect(encoded.statusCode).toBe(405);
    expect(encoded.headers.allow).toBe('GET, HEAD, DELETE');
    // HEAD of a path that has no GET: 405 too, without a body.
    const head = await t.app.inject({ method: 'HEAD', url: '/api/user/logout' });
    expect(head.statusCode).toBe(405);
    expect(head.headers.allow).toBe('POST');
    expect(head.body).toBe('');
    // A file the Swagger UI's route does not have is a 404 under the method it takes.
    expect((await t.app.inject({ method: 'GET', url: '/api/doc/static/nothing' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: '/api/doc/static/nothing' })).headers.allow).toBe('GET, HEAD');
  });

  it('refuses unsupported media types and oversized bodies with 4xx problem+json', async () => {
    const xml = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: '<a/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().code).toBe('request.unsupported-media-type');
    const huge = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: JSON.stringify({ email: 'x'.repeat(2_000_000) }),
      headers: { 'content-type': 'application/json' } });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().code).toBe('request.too-large');
  });

  it('carries a request id on every response', async () => {
    const response = await t.app.inject({ url: '/health' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('health and readiness', () => {
  it('reports liveness and database readiness', async () => {
    const health = await t.app.inject({ url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });
});
