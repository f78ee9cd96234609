/** The HTML login page (SPEC §4) through app.inject() on a real database. */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, TEST_PASSWORD, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { openLoginPage, submitLoginForm } from '../helpers/login-page.ts';

const t = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t.db, { firstName: 'Paula', lastName: 'Pastinake' });
});

describe('GET /login', () => {
  it('renders a German form with labelled fields, "stay logged in" and a hidden CSRF token', async () => {
    const { page, csrf } = await openLoginPage(t.app);
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
    const { page } = await openLoginPage(t.app, '?return_to=%2F');
    expect(page.headers['cross-origin-opener-policy']).toBe('unsafe-none');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    const home = await t.app.inject({ url: '/' });
    expect(home.headers['cross-origin-opener-policy']).toBe('same-origin');
  });

  it('speaks English to browsers that prefer it', async () => {
    const { page } = await openLoginPage(t.app, '', { 'accept-language': 'en-GB,en;q=0.9,de;q=0.5' });
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('Stay logged in');
  });

  it('escapes what it echoes', async () => {
    const { returnTo } = await openLoginPage(t.app, '?return_to=' + encodeURIComponent('/x"><script>alert(1)</script>'));
    expect(returnTo).not.toContain('<script>');
  });
});

describe('POST /login', () => {
  it('logs in and returns to the page the user came from', async () => {
    const { csrf, cookie } = await openLoginPage(t.app, '?return_to=' + encodeURIComponent('/oauth/authorize?client_id=a&state=x'));
    const response = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: csrf, return_to: '/oauth/authorize?client_id=a&state=x' }, cookie);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/oauth/authorize?client_id=a&state=x');
    const session = response.cookies.find((c) => c.name === 'fs_session');
    expect(session?.httpOnly).toBe(true);
    const home = await t.app.inject({ url: '/', headers: { cookie: `fs_session=${session!.value}` } });
    expect(home.body).toContain('Paula Pastinake');
  });

  it('returns to a same-site Referer when no return_to is given', async () => {
    const { returnTo } = await openLoginPage(t.app, '', { referer: 'http://localhost:8080/settings/apps?x=1' });
    expect(returnTo).toBe('/settings/apps?x=1');
    const foreign = await openLoginPage(t.app, '', { referer: 'https://evil.example/phish' });
    expect(foreign.returnTo).toBe('/');
  });

  it('never redirects off-site', async () => {
    for (const target of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)']) {
      const { csrf, cookie } = await openLoginPage(t.app);
      const response = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: csrf, return_to: target }, cookie);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/');
    }
  });

  it('"stay logged in" makes a persistent cookie', async () => {
    const { csrf, cookie } = await openLoginPage(t.app);
    const response = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: csrf, remember: '1' }, cookie);
    expect(response.cookies.find((c) => c.name === 'fs_session')?.maxAge).toBeGreaterThan(13 * 86400);
  });

  it('shows one message for a wrong password or an unknown email and logs nobody in', async () => {
    const sessionsBefore = await t.db.selectFrom('sessions').select('id_digest').execute();
    for (const email of [user.email, 'nobody@example.test']) {
      const { csrf, cookie } = await openLoginPage(t.app);
      const response = await submitLoginForm(t.app, { email, password: 'wrong-password', csrf_token: csrf }, cookie);
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('E-Mail-Adresse oder Passwort ist falsch.');
      expect(response.body).toContain(`value="${email}"`);
      expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    }
    expect(await t.db.selectFrom('sessions').select('id_digest').execute()).toHaveLength(sessionsBefore.length);
  });

  it('the language switch of a failed login keeps the app\'s request the login was for', async () => {
    const returnTo = '/oauth/authorize?client_id=demo-app&scope=openid';
    const { csrf, cookie } = await openLoginPage(t.app, `?return_to=${encodeURIComponent(returnTo)}`);
    const failed = await submitLoginForm(t.app, { email: user.email, password: 'wrong-password', csrf_token: csrf, return_to: returnTo }, cookie);
    expect(failed.statusCode).toBe(401);
    const back = `/login?${new URLSearchParams({ return_to: returnTo })}`;
    expect(failed.body).toContain(`<a href="/language/en?return_to=${encodeURIComponent(back)}" lang="en" hreflang="en">English</a>`);
    const switched = await t.app.inject({ url: `/language/en?return_to=${encodeURIComponent(back)}`, headers: { cookie } });
    expect([switched.statusCode, switched.headers.location]).toEqual([303, back]);
    // A return_to of another site is not carried: the switch leads to the login alone.
    const foreign = await submitLoginForm(t.app, { email: user.email, password: 'wrong-password', csrf_token: csrf, return_to: '//evil.example/x' }, cookie);
    expect(foreign.body).toContain('<a href="/language/en?return_to=%2Flogin" lang="en" hreflang="en">English</a>');
  });

  it('answers an email with a NUL byte with the wrong-credentials message, not an error page', async () => {
    const { csrf, cookie } = await openLoginPage(t.app);
    const response = await t.app.inject({ method: 'POST', url: '/login',
      payload: `email=a%00b%40x.de&password=${encodeURIComponent(TEST_PASSWORD)}&csrf_token=${csrf}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie } });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('E-Mail-Adresse oder Passwort ist falsch.');
    expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
  });

  it('refuses a forged form (no or wrong CSRF token) and logs nobody in', async () => {
    const { cookie } = await openLoginPage(t.app);
    for (const token of ['', 'forged-token-forged-token-forged-token-xxxxx']) {
      const response = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: token }, cookie);
      expect(response.statusCode).toBe(403);
      expect(response.cookies.find((c) => c.name === 'fs_session')).toBeUndefined();
    }
    const noCookie = await submitLoginForm(t.app, { email: user.email, password: TEST_PASSWORD, csrf_token: 'abc' }, '');
    expect(noCookie.statusCode).toBe(403);
  });
});
