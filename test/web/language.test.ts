/**
 * Which language a page speaks: the member's switch (a cookie), then the
 * authorization request's `ui_locales`, then Accept-Language, then German;
 * `login_hint` prefills the login form; an empty login says what is missing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/fixture.ts';
import { openLoginPage, submitLoginForm } from '../helpers/login-page.ts';
import { enrol, passwordStep, postForm } from '../helpers/one-time-codes.ts';

const t = useTestApp();
let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t.db);
});

const authorizePath = (extra: Record<string, string>) => `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'some-app', ...extra })}`;
const langOf = (html: string) => /<html lang="(\w+)">/.exec(html)?.[1];

describe('ui_locales', () => {
  it('reaches the login page inside return_to: English for ui_locales=en, the first supported tag of a list', async () => {
    for (const [uiLocales, expected] of [['en', 'en'], ['fr-CA en-GB de', 'en'], ['fr de', 'de'], ['fr', 'de']] as const) {
      const { page } = await openLoginPage(t.app, `?return_to=${encodeURIComponent(authorizePath({ ui_locales: uiLocales }))}`);
      expect(langOf(page.body), uiLocales).toBe(expected);
    }
  });

  it('outranks Accept-Language', async () => {
    const { page } = await openLoginPage(t.app, `?return_to=${encodeURIComponent(authorizePath({ ui_locales: 'de' }))}`, { 'accept-language': 'en' });
    expect(langOf(page.body)).toBe('de');
  });

  it('carries on to the login\'s second step (whose return_to stays in the pending login)', async () => {
    const member = await makeUser(t.db);
    await enrol(t.app, await t.logIn(member), t.clock.now());
    const english = await passwordStep(t.app, member, authorizePath({ ui_locales: 'fr en' }));
    expect(english.response.headers.location).toBe('/login/second-factor?ui_locales=fr+en');
    const page = await t.app.inject({ url: english.response.headers.location as string, headers: { cookie: english.cookie } });
    expect(page.statusCode).toBe(200);
    expect(langOf(page.body)).toBe('en');
    // A wrong code: the page that answers it too (its form's action carries the language).
    const action = /<form method="post" action="([^"]+)" novalidate/.exec(page.body)![1]!.replace(/&amp;/g, '&');
    expect(action).toBe('/login/second-factor?ui_locales=fr+en');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)![1]!;
    const wrong = await postForm(t.app, action, english.cookie, { csrf_token: csrf, code: '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(langOf(wrong.body)).toBe('en');
    // No ui_locales asked for: the page as before, by Accept-Language.
    const plain = await passwordStep(t.app, member, authorizePath({}));
    expect(plain.response.headers.location).toBe('/login/second-factor');
  });

  it('on the authorization endpoint\'s own pages', async () => {
    const page = await t.app.inject({ url: authorizePath({ ui_locales: 'en', client_id: 'no-such-client' }) });
    expect(page.statusCode).toBe(400);
    expect(langOf(page.body)).toBe('en');
  });
});

describe('the language switch', () => {
  it('is in the page frame, pointing back to the page, with a localised navigation label', async () => {
    const german = await t.app.inject({ url: '/login?return_to=%2Fsettings%2Fapps' });
    expect(german.body).toContain('<nav aria-label="Hauptnavigation">');
    expect(german.body).toContain(`<a href="/language/en?return_to=${encodeURIComponent('/login?return_to=%2Fsettings%2Fapps')}" lang="en" hreflang="en">English</a>`);
    const english = await t.app.inject({ url: '/login', headers: { 'accept-language': 'en' } });
    expect(english.body).toContain('<nav aria-label="Main navigation">');
    expect(english.body).toContain('<a href="/language/de?return_to=%2Flogin" lang="de" hreflang="de">Deutsch</a>');
  });

  it('remembers the choice for a year and goes back; the choice outranks ui_locales and Accept-Language', async () => {
    const response = await t.app.inject({ url: '/language/en?return_to=%2Flogin%3Freturn_to%3D%252F' });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/login?return_to=%2F');
    const cookie = response.cookies.find((c) => c.name === 'fs_lang');
    expect(cookie).toMatchObject({ value: 'en', path: '/', maxAge: 365 * 24 * 3600, httpOnly: true, sameSite: 'Lax' });
    const { page } = await openLoginPage(t.app, `?return_to=${encodeURIComponent(authorizePath({ ui_locales: 'de' }))}`, { cookie: 'fs_lang=en', 'accept-language': 'de' });
    expect(langOf(page.body)).toBe('en');
  });

  it('goes back only to a path of this site, and refuses other languages', async () => {
    for (const target of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'x']) {
      const response = await t.app.inject({ url: `/language/de?return_to=${encodeURIComponent(target)}` });
      expect(response.headers.location, target).toBe('/');
    }
    const unknown = await t.app.inject({ url: '/language/fr' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.cookies.find((c) => c.name === 'fs_lang')).toBeUndefined();
  });
});

describe('the login form', () => {
  it('is prefilled with the authorization request\'s login_hint', async () => {
    const { page } = await openLoginPage(t.app, `?return_to=${encodeURIComponent(authorizePath({ login_hint: user.email }))}`);
    expect(page.body).toContain(`value="${user.email}"`);
    const plain = await openLoginPage(t.app, `?return_to=${encodeURIComponent(`/settings/apps?login_hint=${user.email}`)}`);
    expect(plain.page.body).not.toContain(`value="${user.email}"`);
  });

  it('says what is missing when a field is empty, without counting a failed login', async () => {
    const before = await t.db.selectFrom('login_throttle').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const form of [{ email: '', password: '' }, { email: user.email, password: '' }, { email: '', password: 'something' }]) {
      const { csrf, cookie } = await openLoginPage(t.app);
      const response = await submitLoginForm(t.app, { ...form, csrf_token: csrf }, cookie);
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('Bitte E-Mail-Adresse und Passwort eingeben.');
      expect(response.body).not.toContain('E-Mail-Adresse oder Passwort ist falsch.');
    }
    const after = await t.db.selectFrom('login_throttle').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});
