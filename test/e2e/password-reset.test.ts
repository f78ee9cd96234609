/**
 * Account recovery in a real Chromium, mail included: a member signs in to an
 * app (authorization code, refresh token), later forgets the password, follows
 * "Forgot your password?" from the login page of a new sign-in to the same
 * app, receives the link on a real SMTP server in this process, sets a new
 * password and signs in with it back into the app. Afterwards the old
 * password fails, the browser session from before the reset is over, and the
 * refresh token issued before it is refused with `invalid_grant`.
 */
import type { ParsedMail } from 'mailparser';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { makeUser, type TestUser } from '../helpers/factories.ts';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.ts';
import { launchBrowser, type TestBrowser } from './helpers/browser.ts';
import { startCallbackServer, type CallbackServer } from './helpers/callback-server.ts';
import { CONSENT } from './helpers/consent-page.ts';
import { startDemoApp, type DemoApp } from './helpers/demo-app.ts';
import { fillLoginForm } from './helpers/login.ts';
import { afterNavigation } from './helpers/navigation.ts';
import { authorizeUrl, exchangeCode, makePkce, refresh, type Pkce } from './helpers/oauth-client.ts';

const CLIENT_ID = 'recovery-app';
const NEW_PASSWORD = 'a sentence nobody else would guess';
/** How often the app's mail sender looks at its queue here; the test waits on the SMTP server, not on this. */
const MAIL_POLL_MS = 50;

let smtp: TestSmtpServer;
let app: DemoApp;
let browser: TestBrowser;
let callback: CallbackServer;
let secret: string;
let member: TestUser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await startDemoApp({ env: { SMTP_URL: smtp.url } });
  app.t.app.mailSender!.start(MAIL_POLL_MS); // as the server does; closing the app stops it
  browser = await launchBrowser();
  callback = await startCallbackServer();
  const created = await createClient(app.t.db, app.t.keys, {
    clientId: CLIENT_ID, name: 'Recovery App', confidential: true, redirectUris: [callback.redirectUri],
    scopes: ['openid', 'profile'], grantTypes: ['authorization_code', 'refresh_token'], requiredRegions: [],
  });
  secret = created.secret ?? '';
  member = await makeUser(app.t.db);
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await callback?.close();
  await app?.close();
  await smtp?.close();
});

async function newPage(): Promise<Page> {
  const { context, page } = await browser.newPage();
  contexts.push(context);
  return page;
}

function start(state: string): { url: string; pkce: Pkce } {
  const pkce = makePkce();
  return { url: authorizeUrl(app.baseUrl, { clientId: CLIENT_ID, redirectUri: callback.redirectUri, scope: 'openid profile', state, pkce }), pkce };
}

/** Allows on the consent page and exchanges the code the app receives. */
async function allowAndExchange(page: Page, state: string, pkce: Pkce): Promise<Record<string, unknown>> {
  await page.waitForURL((url) => url.pathname === '/oauth/authorize');
  await page.getByRole('button', { name: CONSENT.allow }).click();
  await page.waitForURL((url) => url.href.startsWith(callback.redirectUri));
  const params = new URL(page.url()).searchParams;
  expect(params.get('state')).toBe(state);
  const tokens = await exchangeCode(app.baseUrl, { code: params.get('code') ?? '', clientId: CLIENT_ID, secret, redirectUri: callback.redirectUri, pkce });
  expect(tokens.status).toBe(200);
  return tokens.body;
}

/** The `count`th message the SMTP server received, once it has; it must be to `email`. */
async function mailNumber(email: string, count: number): Promise<ParsedMail> {
  await smtp.waitFor(count);
  expect(smtp.envelopes[count - 1]).toEqual([email]);
  return smtp.received[count - 1]!;
}

describe('forgotten password, from an app\'s sign-in back into the app', () => {
  let oldPage: Page;
  let oldRefreshToken: string;

  it('signs in to the app before forgetting the password', async () => {
    oldPage = await newPage();
    const { url, pkce } = start('before');
    await oldPage.goto(url);
    expect(new URL(oldPage.url()).pathname).toBe('/login');
    await fillLoginForm(oldPage, member);
    const tokens = await allowAndExchange(oldPage, 'before', pkce);
    oldRefreshToken = String(tokens.refresh_token);
    expect(oldRefreshToken.length).toBeGreaterThan(20);
  });

  it('resets the password by mail and signs in with the new one, back into the app', async () => {
    const page = await newPage();
    const { url, pkce } = start('after');
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/login');
    const returnTo = new URL(page.url()).searchParams.get('return_to');
    expect(returnTo).toMatch(/^\/oauth\/authorize\?/);

    await afterNavigation(page, () => page.getByRole('link', { name: 'Forgot your password?' }).click());
    expect(new URL(page.url()).pathname).toBe('/password/forgot');
    await page.getByLabel('Email address').fill(member.email);
    await afterNavigation(page, () => page.getByRole('button', { name: 'Send the link' }).click());
    await expect(page.getByRole('status').textContent()).resolves.toBe('If an account exists for this address, we have sent it a link. It works for 30 minutes.');

    const mail = await mailNumber(member.email, 1);
    expect(mail.subject).toBe('Reset your password');
    const link = new RegExp(`${app.baseUrl.replaceAll('.', '\\.')}/password/reset/[A-Za-z0-9_-]{43}`).exec(mail.text ?? '')?.[0];
    expect(link).toBeDefined();

    await page.goto(link!);
    await expect(page.locator('#password-intro').textContent()).resolves.toContain('Saving the new password ends all your sessions, on every device');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    // NIST SP 800-63B §5.1.1.2: the new password can be shown as typed (a toggle button, aria-pressed).
    const show = page.getByRole('button', { name: 'Show password' });
    await expect(show.getAttribute('aria-pressed')).resolves.toBe('false');
    await show.click();
    await expect(page.getByLabel('New password').getAttribute('type')).resolves.toBe('text');
    await expect(show.getAttribute('aria-pressed')).resolves.toBe('true');
    await show.click();
    await expect(page.getByLabel('New password').getAttribute('type')).resolves.toBe('password');
    await show.click();
    await afterNavigation(page, () => page.getByRole('button', { name: 'Save the password' }).click());
    const login = new URL(page.url());
    expect([login.pathname, login.searchParams.get('return_to'), login.searchParams.get('reset')]).toEqual(['/login', returnTo, '1']);
    await expect(page.locator('main').textContent()).resolves.toContain('Your password has been changed. Log in with your new password.');

    await fillLoginForm(page, { email: member.email, password: NEW_PASSWORD });
    const tokens = await allowAndExchange(page, 'after', pkce);
    expect(tokens.scope).toBe('openid profile');
    expect((await refresh(app.baseUrl, { refreshToken: String(tokens.refresh_token), clientId: CLIENT_ID, secret })).status).toBe(200);

    const changed = await mailNumber(member.email, 2);
    expect(changed.subject).toBe('Your password was changed');
  });

  it('refuses the old password at the login', async () => {
    const page = await newPage();
    await page.goto(`${app.baseUrl}/login`);
    await fillLoginForm(page, member);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong email or password.');
  });

  it('has ended the browser session from before the reset', async () => {
    const cookie = (await oldPage.context().cookies()).find((c) => c.name === 'fs_session');
    expect(cookie).toBeDefined(); // the browser still sends it; the server no longer knows it
    await oldPage.goto(`${app.baseUrl}/settings/security`);
    expect(new URL(oldPage.url()).pathname).toBe('/login');
  });

  it('refuses the refresh token issued before the reset with invalid_grant', async () => {
    const refused = await refresh(app.baseUrl, { refreshToken: oldRefreshToken, clientId: CLIENT_ID, secret });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  });
});
