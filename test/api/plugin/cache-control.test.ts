/**
 * `/api` answers depend on the session and show the caller's data (the CSRF
 * token, a basket's phone numbers): caches must not store them. Routes that
 * are meant to be cached (uploads, the petition) keep their own header.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, loadDemoData, type DemoSummary } from '../../../src/demo/demo-data.ts';
import { useTestApp } from '../../helpers/fixture.ts';
import type { TestSession } from '../../helpers/session.ts';

const t = useTestApp();
let demo: DemoSummary;
let member: TestSession;

beforeAll(async () => {
  demo = await loadDemoData(t.db);
  member = await t.logIn({ email: 'foodsaver@example.org', password: DEMO_PASSWORD });
});

describe('Cache-Control under /api', () => {
  it('is no-store on answers to a session: the current user with its CSRF token, a basket, a write, an error', async () => {
    const basket = demo.sharing.baskets[0]!.id;
    const answers = [
      await t.app.inject({ url: '/api/user/current', headers: member.headers }),
      await t.app.inject({ url: `/api/baskets/${basket}`, headers: member.headers }),
      await t.app.inject({ method: 'PATCH', url: '/api/notifications/regions', headers: member.headers, payload: [] }),
      await t.app.inject({ url: '/api/baskets/99999', headers: member.headers }),
      await t.app.inject({ url: '/api/user/current' }),
    ];
    expect(answers.map((a) => [a.statusCode, a.headers['cache-control']])).toEqual([
      [200, 'no-store'], [200, 'no-store'], [200, 'no-store'], [404, 'no-store'], [401, 'no-store'],
    ]);
  });

  it('is no-store on the login answer, which carries the CSRF token', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { email: 'foodsaver@example.org', password: DEMO_PASSWORD } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('leaves the caching of an upload to its route, also on a 304', async () => {
    const upload = await t.app.inject({ method: 'POST', url: '/api/uploads', headers: member.headers, payload: { filename: 'a.txt', body: 'aGVsbG8=' } });
    const url = upload.json().url as string;
    const served = await t.app.inject({ url });
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const again = await t.app.inject({ url, headers: { 'if-none-match': String(served.headers.etag) } });
    expect([again.statusCode, again.headers['cache-control']]).toEqual([304, 'public, max-age=31536000, immutable']);
  });
});
