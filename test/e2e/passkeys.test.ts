/**
 * Passkeys in a real Chromium with a virtual authenticator (DevTools
 * protocol, WebAuthn domain): a member signs in with the password, adds a
 * passkey on /settings/security, signs out, then signs in with the passkey
 * inside an OAuth authorization (code with PKCE, exchanged at /oauth/token):
 * the ID token says how (`amr`, `acr`). `prompt=login` is answered with the
 * passkey too, renewing `auth_time` in the same session. The login page
 * offers the passkey in the email field's autofill (conditional mediation),
 * which the virtual authenticator answers at once; the button is tested on a
 * page without that field, and on the second sign-in step after the
 * password, where it completes the login as the second factor. PUBLIC_URL is
 * on `localhost`: WebAuthn takes no IP address as an RP ID.
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { freePort } from '../helpers/oauth.ts';
import { launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { startCallbackServer, type CallbackServer } from './helpers/callback-server.ts';
import { CONSENT } from './helpers/consent-page.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { waitForAutofocus } from './helpers/navigation.ts';
import { authorizeUrl, exchangeCode, makePkce } from './helpers/oauth-client.ts';

const CLIENT_ID = 'passkey-app';
let t: TestApp;
let baseUrl: string;
let browser: TestBrowser;
let callback: CallbackServer;
let secret: string;
let member: TestUser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  t = await buildTestApp({ env: { PUBLIC_URL: baseUrl, LOG_LEVEL: 'warn' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser();
  callback = await startCallbackServer();
  secret = (await createClient(t.db, t.keys, {
    clientId: CLIENT_ID, name: 'Passkey App', confidential: true, redirectUris: [callback.redirectUri], scopes: ['profile'], grantTypes: [], requiredRegions: [],
  })).secret ?? '';
  member = await makeUser(t.db, { firstName: 'Pia' });
  ({ context, page } = await browser.newPage());
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true,
      automaticPresenceSimulation: true, defaultBackupEligibility: false, defaultBackupState: false,
    },
  }));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await callback?.close();
  await t?.close();
});

/** Through the consent page to the client: the ID token of the code it received, verified with the server's keys. */
async function allowAndExchange(pkce: ReturnType<typeof makePkce>, state: string): Promise<JWTPayload> {
  await page.waitForURL((url) => url.pathname === '/oauth/authorize');
  await page.getByRole('button', { name: CONSENT.allow }).click();
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
  const params = new URL(page.url()).searchParams;
  expect(params.get('state')).toBe(state);
  const tokens = await exchangeCode(baseUrl, { code: params.get('code') ?? '', clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce });
  expect(tokens.status).toBe(200);
  const { payload } = await jwtVerify(tokens.body.id_token as string, createRemoteJWKSet(new URL(`${baseUrl}/.well-known/jwks.json`)), { issuer: baseUrl, audience: CLIENT_ID });
  return payload;
}

describe('passkeys in the browser', () => {
  it('adds a passkey on /settings/security after a password login', async () => {
    await logInInBrowser(page, baseUrl, member);
    await page.goto(`${baseUrl}/settings/security`);
    const name = page.getByLabel('Name of the new passkey');
    expect(await name.inputValue()).toMatch(/^Chrom(e|ium)( Headless)? \d+ on Linux$/);
    await name.fill('Virtual key');
    await Promise.all([page.waitForURL(`${baseUrl}/settings/security?passkey=added`), name.press('Enter')]);
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('The passkey was added.');
    // The notice, far down a phone's page, has the focus: shown, and read out.
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toMatch(/^The passkey was added\./);
    await expect(page.getByRole('rowheader', { name: 'Virtual key' }).count()).resolves.toBe(1);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
  });

  it('signs out, then signs in with the passkey from the autofill inside an OAuth flow: amr hwk and user, acr phr', async () => {
    await page.goto(`${baseUrl}/logout`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/logout'), page.getByRole('button', { name: 'Log out' }).click()]);
    const pkce = makePkce();
    const visited: string[] = [];
    const record = (frame: Frame) => { if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname); };
    page.on('framenavigated', record);
    await page.goto(authorizeUrl(baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid profile', state: 'pk-1', pkce }));
    // Nothing typed, nothing pressed: the autofill's passkey signed in on the login page.
    const idToken = await allowAndExchange(pkce, 'pk-1');
    page.off('framenavigated', record);
    expect(visited).toEqual(['/login', '/oauth/authorize', '/callback']);
    expect(idToken.sub).toBe(String(member.id));
    // The virtual authenticator's credentials are not backup eligible: a single-device key.
    expect(idToken.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(idToken.acr).toBe('phr');
    const row = await t.db.selectFrom('passkeys').select(['sign_count', 'last_used_at']).where('user_id', '=', member.id).executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
  });

  it('signs in with the button of a page that offers no autofill', async () => {
    await page.goto(`${baseUrl}/logout`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/logout'), page.getByRole('button', { name: 'Log out' }).click()]);
    // The login page as a second sign-in step would be: the button inside a form with return_to and csrf_token, no webauthn autofill.
    await page.route((url) => url.pathname === '/login', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace('autocomplete="username webauthn"', 'autocomplete="username"') });
    });
    const pkce = makePkce();
    // The browser follows a redirect without asking the route again: the login page is opened at its own address.
    const authorize = await page.request.get(authorizeUrl(baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid', state: 'pk-b', pkce }), { maxRedirects: 0 });
    expect(authorize.status()).toBe(303);
    await page.goto(new URL(authorize.headers().location!, baseUrl).href);
    expect(new URL(page.url()).pathname).toBe('/login');
    // Else the autofill could sign in before the button is pressed.
    expect(await page.locator('input[autocomplete~="webauthn"]').count()).toBe(0);
    // With the keyboard, as a person would (focus, Enter).
    await page.getByRole('button', { name: 'Sign in with a passkey' }).focus();
    await page.keyboard.press('Enter');
    const idToken = await allowAndExchange(pkce, 'pk-b');
    await page.unrouteAll();
    expect(idToken.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(idToken.acr).toBe('phr');
  });

  it('answers prompt=login with the passkey: the same session, a later auth_time', async () => {
    const first = makePkce();
    await page.goto(authorizeUrl(baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid', state: 'pk-2', pkce: first }));
    const before = await allowAndExchange(first, 'pk-2');
    t.clock.advance(90);
    const pkce = makePkce();
    await page.goto(authorizeUrl(baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid', state: 'pk-3', pkce, prompt: 'login' }));
    // The login page comes (prompt=login), and its autofill answers with the passkey.
    const after = await allowAndExchange(pkce, 'pk-3');
    expect(after.sid).toBe(before.sid);
    expect(after.auth_time).toBeGreaterThanOrEqual((before.auth_time as number) + 90);
    expect(after.amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('completes the second step of a password login with the button: amr pwd, hwk, user, mfa', async () => {
    await page.goto(`${baseUrl}/logout`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/logout'), page.getByRole('button', { name: 'Log out' }).click()]);
    // No autofill on the login page (opened directly: a redirect's target is not routed): the member types the password.
    await page.route((url) => url.pathname === '/login', async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace('autocomplete="username webauthn"', 'autocomplete="username"') });
    });
    await page.goto(`${baseUrl}/login`);
    await fillLoginForm(page, member);
    await page.unrouteAll();
    expect(new URL(page.url()).pathname).toBe('/login/second-factor');
    // The member's only second factor: the button, hidden until the script shows it, then has the focus.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Use a passkey');
    await Promise.all([page.waitForURL(`${baseUrl}/`), page.getByRole('button', { name: 'Use a passkey' }).click()]);
    // The app's sign-in now finds the session the two factors started.
    const pkce = makePkce();
    await page.goto(authorizeUrl(baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid', state: 'pk-s', pkce }));
    const idToken = await allowAndExchange(pkce, 'pk-s');
    expect(idToken.amr).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    expect(idToken.acr).toBe('phr');
  });

  it('is reached with the keyboard on the login page, after the password form', async () => {
    // A browser without passkeys: nothing answers the autofill.
    const { context: plain, page } = await browser.newPage();
    await page.goto(`${baseUrl}/login`);
    // The email field's autofocus first: Tab goes on from there.
    await waitForAutofocus(page);
    const order: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => document.activeElement?.textContent?.trim() || (document.activeElement as HTMLInputElement | null)?.name || ''));
    }
    expect(order.indexOf('Sign in with a passkey')).toBeGreaterThan(order.indexOf('password'));
    await plain.close();
  });

  it('says in the page\'s language that it did not work when the server answers no JSON (a proxy\'s error page)', async () => {
    const { context: plain, page } = await browser.newPage();
    await page.route((url) => url.pathname === '/login/passkey/options', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad Gateway</h1>' }));
    await page.goto(`${baseUrl}/language/de?return_to=%2Flogin`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.getByRole('button', { name: 'Mit einem Passkey anmelden' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Die Anmeldung mit diesem Passkey hat nicht geklappt. Versuche es noch einmal oder melde dich mit deinem Passwort an.');
    // At the second step of a login, the password already taken: its own words.
    await page.goto(`${baseUrl}/login`);
    await fillLoginForm(page, member, { english: false });
    expect(new URL(page.url()).pathname).toBe('/login/second-factor');
    await page.getByRole('button', { name: 'Passkey verwenden' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Die Bestätigung mit diesem Passkey hat nicht geklappt. Versuche es noch einmal.');
    await plain.close();
  });

  it('without scripts, offers no passkey control that could not work, and says what is needed', async () => {
    const noScripts = await browser.browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
    const page = await noScripts.newPage();
    // The second step of a member whose second factor is a passkey.
    await logInInBrowser(page, baseUrl, member);
    expect(new URL(page.url()).pathname).toBe('/login/second-factor');
    await expect(page.getByRole('button', { name: 'Use a passkey' }).count()).resolves.toBe(0);
    // In <noscript>, which a browser with scripts turned off shows.
    await expect(page.locator('noscript p').textContent()).resolves.toBe('To sign in with a passkey, turn on JavaScript in this browser.');
    // The security page of a member without a second factor: no form to add one.
    await page.context().clearCookies();
    await logInInBrowser(page, baseUrl, await makeUser(t.db));
    await page.goto(`${baseUrl}/settings/security`);
    await expect(page.getByLabel('Name of the new passkey').isVisible()).resolves.toBe(false);
    await expect(page.getByRole('button', { name: 'Add a passkey' }).count()).resolves.toBe(0);
    await expect(page.locator('noscript p').textContent()).resolves.toBe('To add a passkey, turn on JavaScript in this browser.');
    await noScripts.close();
  });

  it('in a browser without passkeys, the second step that offers only a passkey says so instead of showing nothing', async () => {
    const { context: plain, page } = await browser.newPage();
    await plain.addInitScript(() => { Reflect.deleteProperty(window, 'PublicKeyCredential'); });
    await logInInBrowser(page, baseUrl, member);
    expect(new URL(page.url()).pathname).toBe('/login/second-factor');
    await expect.poll(() => page.getByText('This browser does not support passkeys: confirm the sign-in in a browser that does.').isVisible()).toBe(true);
    await expect(page.getByRole('button', { name: 'Use a passkey' }).count()).resolves.toBe(0);
    await plain.close();
  });
});
