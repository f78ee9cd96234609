/**
 * The authorization flow in a real Chromium: log
 * in on the way, consent with and without "remember", deny, the region error
 * page, and revoking a remembered app on /settings/apps. The client's
 * redirect URI is a tiny local server; the code is exchanged like a client would.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { startCallbackServer, type CallbackServer } from './helpers/callback-server.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { authorizeUrl, exchangeCode, makePkce, refresh, type Pkce } from './helpers/oauth-client.ts';
import { CONSENT } from './helpers/consent-page.ts';

const { app, browser } = useDemoAppAndBrowser();
let callback: CallbackServer;
let secret: string;
let context: BrowserContext;
let page: Page;

const CLIENT_ID = 'e2e-app';
const CLIENT_NAME = 'Retter-App <Test>';

beforeAll(async () => {
  callback = await startCallbackServer();
  const koeln = app.demo.regions.find((r) => r.name === 'Köln')?.id ?? 0;
  const created = await createClient(app.t.db, app.t.keys, {
    clientId: CLIENT_ID, name: CLIENT_NAME, confidential: true, redirectUris: [callback.redirectUri],
    scopes: ['profile', 'email', 'regions'], grantTypes: ['refresh_token'], requiredRegions: [],
  });
  secret = created.secret ?? '';
  await createClient(app.t.db, app.t.keys, {
    clientId: 'koeln-only', name: 'Köln-App', confidential: true, redirectUris: [callback.redirectUri],
    scopes: [], grantTypes: [], requiredRegions: [koeln],
  });
});

afterAll(async () => {
  await callback?.close();
});

beforeEach(async () => {
  await context?.close();
  ({ context, page } = await browser.newPage());
});

function start(scope: string, state: string, options: { clientId?: string; prompt?: string } = {}): { url: string; pkce: Pkce } {
  const pkce = makePkce();
  const url = authorizeUrl(app.baseUrl, { clientId: options.clientId ?? CLIENT_ID, redirectUri: callback.redirectUri, scope, state, pkce, ...(options.prompt ? { prompt: options.prompt } : {}) });
  return { url, pkce };
}

/** Waits until the browser has landed on the client's redirect URI; its query parameters. */
async function landedOnClient(): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
  return new URL(page.url()).searchParams;
}

async function decide(button: 'allow' | 'deny', remember: boolean): Promise<void> {
  if (remember) await page.getByLabel(CONSENT.remember).check();
  await page.getByRole('button', { name: button === 'allow' ? CONSENT.allow : CONSENT.deny }).click();
}

describe('authorization in the browser', () => {
  it('logs in on the way, asks for consent in plain words, and returns a working code', async () => {
    const { url, pkce } = start('openid profile email', 'state-1');
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/login');
    await fillLoginForm(page, app.user('foodsaver@example.org'));
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    const main = await page.locator('main').textContent() ?? '';
    expect(main).toContain(CLIENT_NAME);
    for (const words of [CONSENT.scope.profile, CONSENT.scope.email]) expect(main).toContain(words);
    expect(main).not.toContain(CONSENT.scope.regions);
    await page.screenshot({ path: '/tmp/e2e-consent.png', fullPage: true });

    await decide('allow', false);
    const params = await landedOnClient();
    expect(params.get('state')).toBe('state-1');
    expect(params.get('iss')).toBe(app.baseUrl);
    const tokens = await exchangeCode(app.baseUrl, { code: params.get('code') ?? '', clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce });
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
    expect(tokens.body.scope).toBe('openid profile email');

    // Without "remember", the next authorization asks again.
    await page.goto(start('openid profile', 'state-2').url);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    await expect(page.getByRole('button', { name: CONSENT.allow }).count()).resolves.toBe(1);
  });

  it('with "remember", the next request for the same or fewer scopes skips the page; more scopes ask again', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('storemanager@example.org'));
    await page.goto(start('openid profile email', 'remember-1').url);
    await decide('allow', true);
    expect((await landedOnClient()).get('code')).toMatch(/.+/);

    const callsBefore = callback.received.length;
    const second = start('openid email', 'remember-2');
    await page.goto(second.url);
    const params = await landedOnClient();
    expect(params.get('state')).toBe('remember-2');
    expect(callback.received.length).toBe(callsBefore + 1);
    const tokens = await exchangeCode(app.baseUrl, { code: params.get('code') ?? '', clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce: second.pkce });
    expect(tokens.status).toBe(200);

    await page.goto(start('openid profile email regions', 'remember-3').url);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    await expect(page.locator('main').textContent()).resolves.toContain(CONSENT.scope.regions);
    await page.goto(start('openid email', 'remember-4', { prompt: 'consent' }).url);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
  });

  it('deny sends the browser back with error=access_denied and no code', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('foodsharer@example.org'));
    await page.goto(start('openid profile', 'deny-state').url);
    await decide('deny', true);
    const params = await landedOnClient();
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('deny-state');
    expect(params.get('iss')).toBe(app.baseUrl);
    expect(params.get('code')).toBeNull();
    // Denying is not remembered: the next request asks again.
    await page.goto(start('openid profile', 'deny-2').url);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
  });

  it('shows "User not in required regions" to a member of none of them, with a way back to the client', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('foodsaver@example.org'));
    const response = await page.goto(start('openid', 'region-state', { clientId: 'koeln-only' }).url);
    expect(response?.status()).toBe(403);
    await expect(page.locator('main').textContent()).resolves.toContain('User not in required regions');
    await page.screenshot({ path: '/tmp/e2e-region-error.png', fullPage: true });
    await page.locator(`main a[href^="${callback.redirectUri}"]`).click();
    const params = await landedOnClient();
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('region-state');

    // A member of the required region passes.
    const { context: other, page: koelnPage } = await browser.newPage();
    await logInInBrowser(koelnPage, app.baseUrl, app.user('koeln@example.org'));
    await koelnPage.goto(start('openid', 'koeln-state', { clientId: 'koeln-only' }).url);
    await expect(koelnPage.getByRole('button', { name: CONSENT.allow }).count()).resolves.toBe(1);
    await other.close();
  });

  it('an authorization request POSTed from the client\'s own site finds the logged-in session (SameSite=Lax)', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('foodsaver@example.org'));
    const postFrom = (path: string, prompt?: string) => {
      const fields = Object.fromEntries(new URL(start('openid profile', `post-${path}`, prompt ? { prompt } : {}).url).searchParams);
      const inputs = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('');
      return callback.servePage(`/${path}`, `<!doctype html><title>Client app</title>
        <form method="post" action="${app.baseUrl}/oauth/authorize">${inputs}<button>Sign in with Foodsharing</button></form>`);
    };
    await page.goto(postFrom('signin'));
    await page.getByRole('button', { name: 'Sign in with Foodsharing' }).click();
    await page.waitForURL((url) => url.pathname === '/oauth/authorize');
    await expect(page.getByRole('button', { name: CONSENT.allow }).count()).resolves.toBe(1);

    // prompt=none by POST: the session is found, so the answer is about consent, not login.
    await page.goto(postFrom('silent', 'none'));
    await page.getByRole('button', { name: 'Sign in with Foodsharing' }).click();
    const params = await landedOnClient();
    expect(params.get('error')).toBe('consent_required');
    expect(params.get('state')).toBe('post-silent');
  });

  it('a remembered app is listed on /settings/apps; revoking it ends its refresh tokens and asks again', async () => {
    await logInInBrowser(page, app.baseUrl, app.user('ambassador@example.org'));
    const first = start('openid profile regions', 'apps-1');
    await page.goto(first.url);
    await decide('allow', true);
    const params = await landedOnClient();
    const tokens = await exchangeCode(app.baseUrl, { code: params.get('code') ?? '', clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce: first.pkce });
    const refreshToken = String(tokens.body.refresh_token);

    await page.goto(`${app.baseUrl}/settings/apps`);
    const row = page.locator('tr', { hasText: CLIENT_NAME });
    await expect(row.textContent()).resolves.toContain(CONSENT.scope.profile);
    await expect(row.textContent()).resolves.toContain(CONSENT.scope.regions);
    await page.screenshot({ path: '/tmp/e2e-my-apps.png', fullPage: true });
    await row.getByRole('button', { name: `Revoke access for ${CLIENT_NAME}` }).press('Enter');
    await page.waitForURL(`${app.baseUrl}/settings/apps?revoked=${CLIENT_ID}`);
    await expect(page.getByRole('status').textContent()).resolves.toBe(`Access for ${CLIENT_NAME} has been revoked.`);
    await expect(page.locator('tr', { hasText: CLIENT_NAME }).count()).resolves.toBe(0);

    const refreshed = await refresh(app.baseUrl, { refreshToken, clientId: CLIENT_ID, secret });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
    await page.goto(start('openid profile', 'apps-2').url);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
  });
});
