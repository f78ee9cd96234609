import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { makeUser, TEST_PASSWORD, type TestUser } from './helpers/factories.ts';

let t: TestApp;
let user: TestUser;
beforeAll(async () => {
  t = await buildTestApp();
  user = await makeUser(t.db, { firstName: 'Paula', lastName: 'Pastinake' });
});
afterAll(() => t.close());

/** GET /login and read the form's hidden token and the cookie it belongs to. */
async function openLoginPage(query = '', headers: Record<string, string> = {}) {
  const page = await t.app.inject({ url: `/login${query}`, headers });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const returnTo = /name="return_to" value="([^"]*)"/.exec(page.body)?.[1] ?? '';
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  return { page, csrf, returnTo, cookie };
}

function submit(form: Record<string, string>, cookie: string) {
  return t.app.inject({ method: 'POST', url: '/login', payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
}

describe('GET /login', () => {
  it('renders a German form with labelled fields, "stay logged in" and a hidden CSRF token', async () => {
    const { page, csrf } = await openLoginPage();
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<html lang="de">');
    expect(page.body).toContain('<label for="email">E-Mail-Adresse</label>');
    expect(page.body).toContain('<label for="password">Passwort</label>');
    expect(page.body).toContain('Angemeldet bleiben');
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.cookies.find((c) => c.name === 'CSRF_TOKEN')?.value).toBe(csrf);
  });

  it('keeps a sign-in popup connected to its opener (no same-origin COOP) but cannot be framed', async () => {
    const { page } = await openLoginPage('?return_to=%2F');
    expect(page.headers['cross-origin-opener-policy']).toBe('unsafe-none');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    const home = await t.app.inject({ url: '/' });
    expect(home.headers['cross-origin-opener-policy']).toBe('same-origin');
  });

  it('speaks English to browsers that prefer it', async () => {
    const { page } = await openLoginPage('', { 'accept-language': 'en-GB,en;q=0.9,de;q=0.5' });
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('Stay logged in');
  });

  it('escapes what it echoes', async () => {
    const { returnTo } = await openLoginPage('?return_to=' + encodeURIComponent('/x"><script>alert(1)</script>'));
    expect(returnTo).not.toContain('<script>');
  });
});

describe('POST /login', () => {
  it('logs in and returns to the page the user came from', async () => {
    const { csrf, cookie } = await openLoginPage('?return_to=' + encodeURIComponent('/oauth/authorize?client_id=a&state=x'));
    const response = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf, return_to: '/oauth/authorize?client_id=a&state=x' }, cookie);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/oauth/authorize?client_id=a&state=x');
    const session = response.cookies.find((c) => c.name === 'fs_session');
    expect(session?.httpOnly).toBe(true);
    const home = await t.app.inject({ url: '/', headers: { cookie: `fs_session=${session!.value}` } });
    expect(home.body).toContain('Paula Pastinake');
  });

  it('returns to a same-site Referer when no return_to is given', async () => {
    const { returnTo } = await openLoginPage('', { referer: 'http://localhost:8080/settings/apps?x=1' });
    expect(returnTo).toBe('/settings/apps?x=1');
    const foreign = await openLoginPage('', { referer: 'https://evil.example/phish' });
    expect(foreign.returnTo).toBe('/');
  });

  it('never redirects off-site', async () => {
    for (const target of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const { csrf, cookie } = await openLoginPage();
      const response = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf, return_to: target }, cookie);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/');
    }
  });

  it('"stay logged in" makes a persistent cookie', async () => {
    const { csrf, cookie } = await openLoginPage();
    const response = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf, remember: '1' }, cookie);
    expect(response.cookies.find((c) => c.name === 'fs_session')?.maxAge).toBeGreaterThan(13 * 86400);
  });

  it('shows one message for a wrong password or an unknown email and logs nobody in', async () => {
    const sessionsBefore = await t.db.selectFrom('sessions').select('id_digest').execute();
    for (const email of [user.email, 'nobody@example.test']) {
      const { csrf, cookie } = await openLoginPage();
      const response = await submit({ email, password: 'wrong-password', csrf_token: csrf }, cookie);
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('E-Mail-Adresse oder Passwort ist falsch.');
      expect(response.body).toContain(`value="${email}"`);
      expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    }
    expect(await t.db.selectFrom('sessions').select('id_digest').execute()).toHaveLength(sessionsBefore.length);
  });

  it('answers an email with a NUL byte with the wrong-credentials message, not an error page', async () => {
    const { csrf, cookie } = await openLoginPage();
    const response = await t.app.inject({ method: 'POST', url: '/login',
      payload: `email=a%00b%40x.de&password=${encodeURIComponent(TEST_PASSWORD)}&csrf_token=${csrf}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('E-Mail-Adresse oder Passwort ist falsch.');
    expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
  });

  it('refuses a forged form (no or wrong CSRF token) and logs nobody in', async () => {
    const { cookie } = await openLoginPage();
    for (const token of ['', 'forged-token-forged-token-forged-token-xxxxx']) {
      const response = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: token }, cookie);
      expect(response.statusCode).toBe(403);
      expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    }
    const noCookie = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: 'abc' }, '');
    expect(noCookie.statusCode).toBe(403);
  });
});

describe('logout: GET confirms, only POST with the form token ends the session', () => {
  async function logInFresh() {
    const { csrf, cookie } = await openLoginPage();
    const login = await submit({ email: user.email, password: TEST_PASSWORD, csrf_token: csrf }, cookie);
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
