/** The HTML logout: a confirmation page, and only its form ends the session (SPEC §4). */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { openLoginPage, submitLoginForm } from '../helpers/login-page.ts';

const t = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t.db, { firstName: 'Paula', lastName: 'Pastinake' });
});

describe('logout: GET confirms, only POST with the form token ends the session', () => {
  async function logInFresh() {
    const { csrf, cookie } = await openLoginPage(t.app);
    const login = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: csrf }, cookie);
    return `fs_session=${login.cookies.find((c) => c.name === 'fs_session')!.value}`;
  }
  const isLoggedIn = async (cookie: string) => (await t.app.inject({ url: '/api/user/current', headers: { cookie } })).statusCode === 200;
  const postLogout = (cookie: string, form: Record<string, string>) => t.app.inject({
    method: 'POST', url: '/logout', payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
  });

  it('GET /logout shows a German confirmation form and keeps the session (no logout CSRF from any site)', async () => {
    const cookie = await logInFresh();
    const page = await t.app.inject({ url: '/logout', headers: { cookie, referer: 'https://evil.example/' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Möchtest du dich wirklich abmelden?');
    expect(page.body).toContain('<form method="post" action="/logout">');
    expect(page.body).toMatch(/name="csrf_token" value="[A-Za-z0-9_-]{43}"/);
    expect(page.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    expect(await isLoggedIn(cookie)).toBe(true);
  });

  it('GET /logout is in English for browsers that prefer it', async () => {
    const cookie = await logInFresh();
    const page = await t.app.inject({ url: '/logout', headers: { cookie, 'accept-language': 'en-GB,en;q=0.9' } });
    expect(page.body).toContain('Do you really want to log out?');
    expect(page.body).toContain('<button type="submit">Log out</button>');
  });

  it('GET /logout without a session goes to the start page', async () => {
    const response = await t.app.inject({ url: '/logout' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
  });

  it('POST /logout without or with a wrong token answers 403 and keeps the session', async () => {
    const cookie = await logInFresh();
    for (const form of [{}, { csrf_token: '' }, { csrf_token: 'forged-token-forged-token-forged-token-xxxxx' }] as Record<string, string>[]) {
      const response = await postLogout(cookie, form);
      expect(response.statusCode).toBe(403);
      expect(response.body).toContain('Das Formular ist abgelaufen');
    }
    expect(await isLoggedIn(cookie)).toBe(true);
  });

  it('POST /logout with the confirmation form\'s token ends the session and clears the cookies', async () => {
    const cookie = await logInFresh();
    const page = await t.app.inject({ url: '/logout', headers: { cookie } });
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const logout = await postLogout(cookie, { csrf_token: csrf });
    expect(logout.statusCode).toBe(303);
    expect(logout.headers.location).toBe('/');
    expect(logout.cookies.find((c) => c.name === 'fs_session')?.value).toBe('');
    expect(await isLoggedIn(cookie)).toBe(false);
  });
});
