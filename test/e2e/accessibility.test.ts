/**
 * Every page passes axe-core's WCAG 2.1 A and AA rules with zero violations,
 * in German and English, at desktop width and on a 390 px phone, including
 * the states people meet: a failed login, a form with errors, the secret
 * shown once, the confirmations. Pages must also fit the phone's width.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { storeResetToken } from '../../src/accounts/password-reset.ts';
import { randomToken } from '../../src/accounts/sessions.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm } from './helpers/login.ts';
import { afterNavigation } from './helpers/navigation.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const LOCALES = { en: 'en-US', de: 'de-DE' } as const;

const { app, browser } = useDemoAppAndBrowser();

interface Violation { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }

async function violationsOf(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the pages' CSP (script-src 'self') rightly refuses an injected tag.
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: tags } });
  }, WCAG_AA);
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

function pkceChallenge(): string {
  return createHash('sha256').update('a'.repeat(43)).digest('base64url');
}

/** A live reset link for the demo foodsaver, made as the mail's composer makes it. */
async function resetLink(): Promise<string> {
  const token = randomToken();
  const user = await app.t.db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', 'foodsaver@example.org').executeTakeFirstOrThrow();
  await storeResetToken(app.t.db, { token, userId: user.id, passwordHash: user.password_hash, returnTo: '/' }, app.t.clock.now());
  return `${app.baseUrl}/password/reset/${token}`;
}

/** A passkey of the demo foodsaver, stored as a registration stores one, for the list on /settings/security. */
async function givePasskey(): Promise<void> {
  const user = await app.t.db.selectFrom('users').select('id').where('email', '=', 'foodsaver@example.org').executeTakeFirstOrThrow();
  await app.t.db.insertInto('passkeys').values({
    user_id: user.id, credential_id: `a11y-${user.id}`, public_key: Buffer.alloc(77), device_type: 'multiDevice', backed_up: true, name: 'Pixel 9 (Chrome)',
  }).onConflict((oc) => oc.column('credential_id').doNothing()).execute();
}

/** Each page: how to reach it in a fresh browser context, as which user. */
const PAGES: Array<{ name: string; as?: string; open(page: Page, english: boolean): Promise<void> }> = [
  { name: 'login', open: async (page) => { await page.goto(`${app.baseUrl}/login`); } },
  {
    name: 'login with an error',
    open: async (page, english) => {
      await page.goto(`${app.baseUrl}/login`);
      await fillLoginForm(page, { email: 'nobody@example.org', password: 'wrong password' }, { english });
    },
  },
  { name: 'forgot password', open: async (page) => { await page.goto(`${app.baseUrl}/password/forgot`); } },
  {
    name: 'forgot password: sent',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/password/forgot`);
      await page.locator('#email').fill('nobody@example.org');
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
    },
  },
  { name: 'password reset: invalid link', open: async (page) => { await page.goto(`${app.baseUrl}/password/reset/${'x'.repeat(43)}`); } },
  { name: 'password reset: form', open: async (page) => { await page.goto(await resetLink()); } },
  {
    name: 'password reset: form with errors',
    open: async (page) => {
      await page.goto(await resetLink());
      await page.locator('#new_password').fill('short');
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
      await page.locator('#new_password-error').waitFor();
    },
  },
  { name: 'home', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/`); } },
  { name: 'logout confirmation', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/logout`); } },
  {
    name: 'consent',
    as: 'foodsaver@example.org',
    open: async (page) => {
      const query = new URLSearchParams({
        response_type: 'code', client_id: 'demo-app', redirect_uri: 'http://127.0.0.1:3000/callback', scope: 'openid profile email regions',
        state: 's', code_challenge: pkceChallenge(), code_challenge_method: 'S256', prompt: 'consent',
      });
      await page.goto(`${app.baseUrl}/oauth/authorize?${query}`);
    },
  },
  { name: 'authorization error', open: async (page) => { await page.goto(`${app.baseUrl}/oauth/authorize?client_id=unknown-client`); } },
  {
    name: 'logout through a client: confirmation',
    as: 'foodsaver@example.org',
    open: async (page) => {
      const query = new URLSearchParams({ client_id: 'demo-app', post_logout_redirect_uri: 'http://127.0.0.1:3000/logged-out', state: 's' });
      await page.goto(`${app.baseUrl}/oauth/logout?${query}`);
    },
  },
  { name: 'logout through a client: logged out', open: async (page) => { await page.goto(`${app.baseUrl}/oauth/logout`); } },
  { name: 'logout through a client: error', open: async (page) => { await page.goto(`${app.baseUrl}/oauth/logout?post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F`); } },
  { name: 'not found', open: async (page) => { await page.goto(`${app.baseUrl}/no-such-page`); } },
  { name: 'my apps', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/settings/apps`); } },
  { name: 'security: sessions', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/settings/security?ended=1`); } },
  {
    name: 'security: password form with errors',
    as: 'foodsaver@example.org',
    open: async (page, english) => {
      await page.goto(`${app.baseUrl}/settings/security`);
      await page.getByLabel(english ? 'Current password' : 'Aktuelles Passwort').fill('not the password');
      await page.getByLabel(english ? 'New password' : 'Neues Passwort').fill('a long enough new password');
      await afterNavigation(page, () => page.getByRole('button', { name: english ? 'Change password' : 'Passwort ändern' }).click());
      await page.locator('#current_password-error').waitFor();
    },
  },
  {
    name: 'security: passkeys',
    as: 'foodsaver@example.org',
    open: async (page) => {
      await givePasskey();
      await page.goto(`${app.baseUrl}/settings/security?passkey=added`);
    },
  },
  {
    // The demo app's PUBLIC_URL is an IP address, which no browser accepts as an RP ID: the ceremony fails at once.
    name: 'security: passkey not added',
    as: 'foodsaver@example.org',
    open: async (page, english) => {
      await page.goto(`${app.baseUrl}/settings/security`);
      await page.getByRole('button', { name: english ? 'Add a passkey' : 'Passkey hinzufügen' }).focus();
      await page.keyboard.press('Enter');
      await page.locator('[data-passkey-error]:not([hidden])').waitFor();
    },
  },
  { name: 'admin: forbidden', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients`); } },
  { name: 'admin: client list', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients`); } },
  { name: 'admin: new client form', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients/new`); } },
  {
    name: 'admin: form with errors',
    as: 'orga@example.org',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').last().click());
    },
  },
  { name: 'admin: edit form', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/edit`); } },
  { name: 'admin: delete confirmation', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients/demo-spa/delete`); } },
  { name: 'admin: new secret confirmation', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/secret`); } },
  {
    name: 'admin: the secret, shown once',
    as: 'orga@example.org',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/secret`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').first().click());
      await page.locator('.secret, input[readonly]').first().waitFor();
    },
  },
  // After the secret above: the audit log lists at least that change.
  { name: 'admin: audit log', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/audit`); } },
  { name: 'admin: audit log, bad filters', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/audit?member=nobody&from=yesterday`); } },
];

/** One browser context per user: logged in once, then every page of that user in turn. */
async function checkPages(locale: string, viewport: { width: number; height: number }, english: boolean) {
  const found: Record<string, string[]> = {};
  const overflowing: Record<string, number> = {};
  for (const user of [undefined, 'foodsaver@example.org', 'orga@example.org']) {
    const { context, page } = await browser.newPage({ locale });
    await page.setViewportSize(viewport);
    if (user) {
      await page.goto(`${app.baseUrl}/login`);
      await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, app.user(user), { english })]);
    }
    for (const spec of PAGES.filter((p) => p.as === user)) {
      await spec.open(page, english);
      const violations = await violationsOf(page);
      if (violations.length > 0) found[spec.name] = violations;
      const extra = await overflow(page);
      if (extra > 0) overflowing[spec.name] = extra;
    }
    await context.close();
  }
  return { found, overflowing };
}

describe('accessibility (axe-core, WCAG 2.1 AA)', () => {
  for (const [language, locale] of Object.entries(LOCALES)) {
    for (const [width, viewport] of Object.entries(VIEWPORTS)) {
      it(`every page in ${language} at ${width} width`, async () => {
        const { found, overflowing } = await checkPages(locale, viewport, language === 'en');
        expect(found).toEqual({});
        expect(overflowing).toEqual({});
      });
    }
  }
});

describe('after a failed form, focus is on the error summary', () => {
  async function focusedText(page: Page): Promise<string | null> {
    return page.evaluate(() => (document.activeElement && document.activeElement !== document.body ? document.activeElement.textContent : null));
  }

  it('on the login page; without an error, on the email field', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/login`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await fillLoginForm(page, { email: 'nobody@example.org', password: 'wrong password' });
    expect(await focusedText(page)).toBe(await page.getByRole('alert').textContent());
    await context.close();
  });

  it('on the client form', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/login`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, app.user('orga@example.org'))]);
    await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
    await afterNavigation(page, () => page.locator('form button[type=submit]').last().click());
    expect(await focusedText(page)).toBe('Please correct the marked fields.');
    await context.close();
  });
});

describe('the language switch in the browser', () => {
  it('switches a German page to English and keeps English on the next pages', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Anmelden');
    await Promise.all([page.waitForURL(`${app.baseUrl}/login`), page.getByRole('link', { name: 'English' }).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Log in');
    await Promise.all([page.waitForURL(`${app.baseUrl}/`), fillLoginForm(page, app.user('foodsaver@example.org'))]);
    await page.goto(`${app.baseUrl}/settings/apps`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await Promise.all([page.waitForURL(`${app.baseUrl}/settings/apps`), page.getByRole('link', { name: 'Deutsch' }).click()]);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await context.close();
  });
});
