/**
 * RP-initiated logout in a real Chromium: the confirmation page (German and
 * English, answered with the keyboard), "stay logged in", and the client's
 * own ID token logging out without a question. The client's pages are a tiny
 * local server; after logout, `prompt=none` answers `login_required`.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { startCallbackServer, type CallbackServer } from './helpers/callback-server.ts';
import { CONSENT } from './helpers/consent-page.ts';
import { startDemoApp, type DemoApp } from './helpers/demo-app.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { waitForAutofocus } from './helpers/navigation.ts';
import { authorizeUrl, exchangeCode, makePkce } from './helpers/oauth-client.ts';

const CLIENT_ID = 'logout-app';
const CLIENT_NAME = 'Abhol-App';

let app: DemoApp;
let browser: TestBrowser;
let callback: CallbackServer;
let secret: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  app = await startDemoApp();
  browser = await launchBrowser();
  callback = await startCallbackServer();
  // The client's one page records both answers: sign-in (code) and logout (state only).
  const created = await createClient(app.t.db, app.t.keys, {
    clientId: CLIENT_ID, name: CLIENT_NAME, confidential: true, redirectUris: [callback.redirectUri], postLogoutRedirectUris: [callback.redirectUri],
    scopes: ['profile'], grantTypes: [], requiredRegions: [],
  });
  secret = created.secret ?? '';
});

afterAll(async () => {
  await browser?.close();
  await callback?.close();
  await app?.close();
});

async function openPage(locale?: string): Promise<void> {
  await context?.close();
  ({ context, page } = await browser.newPage(locale ? { locale } : {}));
}

beforeEach(() => openPage());

async function landedOnClient(): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
  return new URL(page.url()).searchParams;
}

/** Logs in and signs in to the client (consent answered in English); the client's ID token. */
async function signIn(email: string): Promise<string> {
  await logInInBrowser(page, app.baseUrl, app.user(email));
  const pkce = makePkce();
  await page.goto(authorizeUrl(app.baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid profile', state: 'in', pkce }));
  await page.getByRole('button', { name: CONSENT.allow }).click();
  const code = (await landedOnClient()).get('code') ?? '';
  const tokens = await exchangeCode(app.baseUrl, { code, clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce });
  return tokens.body.id_token as string;
}

function logoutUrl(params: Record<string, string>): string {
  return `${app.baseUrl}/oauth/logout?${new URLSearchParams({ client_id: CLIENT_ID, post_logout_redirect_uri: callback.redirectUri, ...params }).toString()}`;
}

async function expectLoggedOut(): Promise<void> {
  await page.goto(authorizeUrl(app.baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid', state: 'silent', pkce: makePkce(), prompt: 'none' }));
  expect((await landedOnClient()).get('error')).toBe('login_required');
}

describe('logging out through a client', () => {
  it('asks in German, is answered with the keyboard, and returns to the client with state', async () => {
    await openPage('de-DE');
    await page.goto(`${app.baseUrl}/login`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, app.user('foodsaver@example.org'), { english: false })]);
    await page.goto(logoutUrl({ state: 'bye-de' }));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Abmelden');
    expect(await page.locator('#end-session-question').textContent()).toBe(`${CLIENT_NAME} möchte dich abmelden. Möchtest du dich auch bei Foodsharing abmelden?`);
    const button = page.getByRole('button', { name: 'Abmelden' });
    await waitForAutofocus(page);
    await expect(button.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await page.screenshot({ path: '/tmp/e2e-end-session.png', fullPage: true });
    await page.keyboard.press('Enter');
    expect((await landedOnClient()).get('state')).toBe('bye-de');
    await expectLoggedOut();
  });

  it('"Stay logged in" keeps the session', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('foodsaver@example.org'));
    await page.goto(logoutUrl({ state: 'stay' }));
    await expect(page.locator('#end-session-question').textContent()).resolves.toBe(`${CLIENT_NAME} wants to log you out. Do you want to log out of Foodsharing as well?`);
    await Promise.all([page.waitForURL(`${app.baseUrl}/`), page.getByRole('link', { name: 'Stay logged in' }).click()]);
    await expect(page.getByRole('link', { name: 'Log out' }).count()).resolves.toBe(1);
  });

  it('with the client\'s own ID token as hint: logged out without a question', async () => {
    const idToken = await signIn('storemanager@example.org');
    await page.goto(logoutUrl({ id_token_hint: idToken, state: 'hinted' }));
    expect((await landedOnClient()).get('state')).toBe('hinted');
    await expectLoggedOut();
  });
});
