/**
 * A browser's copy of a session that has ended elsewhere (another browser's
 * "End", an operator, a password change) or run out is expired by the next
 * answer it gets (OWASP Session Management): the session and CSRF_TOKEN
 * cookies, on the pages, the /api hook and a route that reads the session in
 * its own statement; a login that replaces it keeps its new cookie.
 */
import { describe, expect, it } from 'vitest';
import { makeRegion, makeUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';

const t = useTestApp();

/** The session's cookies as an answer sets them: name → value (empty when it expires one). */
function setCookies(answer: { cookies: Array<{ name: string; value: string; maxAge?: number; expires?: Date }> }): Record<string, string> {
  return Object.fromEntries(answer.cookies.map((c) => [c.name, c.value]));
}

function expired(answer: { cookies: Array<{ name: string; value: string; maxAge?: number; expires?: Date }> }, name: string): boolean {
  const cookie = answer.cookies.find((c) => c.name === name);
  return cookie !== undefined && cookie.value === '' && (cookie.expires === undefined || cookie.expires.getTime() <= Date.now());
}

describe('the cookies of a session that has ended', () => {
  it('are expired by the next answer: /api, a route reading the session in its statement, a page', async () => {
    const member = await makeUser(t.db);
    const region = await makeRegion(t.db);
    const session = await t.logIn(member);
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute(); // ended elsewhere
    for (const url of ['/api/user/current', `/api/region/${region}/pin`]) {
      const answer = await t.app.inject({ url, headers: { cookie: session.cookie } });
      expect(answer.statusCode, url).toBe(401);
      expect(expired(answer, 'fs_session'), url).toBe(true);
      expect(expired(answer, 'CSRF_TOKEN'), url).toBe(true);
    }
    const page = await t.app.inject({ url: '/settings/security', headers: { cookie: session.cookie } });
    expect(page.statusCode).toBe(303);
    expect(expired(page, 'fs_session')).toBe(true);
  });

  it('are replaced, not expired, by a login that sends the dead cookie along', async () => {
    const member = await makeUser(t.db);
    const old = await t.logIn(member);
    await t.db.deleteFrom('sessions').where('user_id', '=', member.id).execute();
    const login = await t.app.inject({ method: 'POST', url: '/api/user/login', headers: { cookie: old.cookie }, payload: { email: member.email, password: member.password } });
    expect(login.statusCode).toBe(200);
    const set = setCookies(login);
    expect(set.fs_session).toMatch(/^[\w-]{40,}$/);
    expect(login.cookies.filter((c) => c.name === 'fs_session')).toHaveLength(1);
    const current = await t.app.inject({ url: '/api/user/current', headers: { cookie: `fs_session=${set.fs_session}` } });
    expect(current.statusCode).toBe(200);
  });

  it('are left alone while the session lives, and when no cookie was sent', async () => {
    const session = await t.logIn(await makeUser(t.db));
    const live = await t.app.inject({ url: '/api/user/current', headers: { cookie: session.cookie } });
    expect(live.statusCode).toBe(200);
    expect(live.cookies).toEqual([]);
    const none = await t.app.inject({ url: '/api/user/current' });
    expect(none.statusCode).toBe(401);
    expect(none.cookies).toEqual([]);
  });
});
