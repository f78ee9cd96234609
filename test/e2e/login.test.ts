/**
 * Logging in as a demo user works in a browser: the /login page in a real
 * Chromium, driven with labelled fields and the keyboard.
 */
import { describe, expect, it } from 'vitest';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm } from './helpers/login.ts';

const { app, browser } = useDemoAppAndBrowser();

const SESSION_COOKIE = 'fs_session';

describe('login in the browser', () => {
  it('logs a demo user in from a protected page and returns there', async () => {
    const fabian = app.user('foodsaver@example.org');
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/settings/apps`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('return_to')).toBe('/settings/apps');
    await expect(page.locator('h1').textContent()).resolves.toBe('Log in');

    await fillLoginForm(page, fabian);
    await page.waitForURL(`${app.baseUrl}/settings/apps`);
    await page.screenshot({ path: '/tmp/e2e-login-landed.png', fullPage: true });

    await page.goto(`${app.baseUrl}/`);
    await expect(page.locator('main').textContent()).resolves.toContain('Logged in as Fabian Retter (foodsaver@example.org).');
    const session = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    expect(session?.expires).toBe(-1);
    await context.close();
  });

  it('shows the error for a wrong password and stays logged out', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/login`);
    await fillLoginForm(page, { email: 'foodsaver@example.org', password: 'not-the-password' });
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Wrong email or password.');
    await expect(page.getByLabel('Email address').inputValue()).resolves.toBe('foodsaver@example.org');
    await expect(page.getByLabel('Email address').getAttribute('aria-describedby')).resolves.toBe('login-error');
    await page.screenshot({ path: '/tmp/e2e-login-error.png', fullPage: true });
    expect((await context.cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(false);

    await page.goto(`${app.baseUrl}/`);
    await expect(page.locator('main').textContent()).resolves.toContain('You are not logged in.');
    await context.close();
  });

  it('"Angemeldet bleiben" makes the session cookie persistent (14 days)', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await fillLoginForm(page, app.user('orga@example.org'), { remember: true, english: false });
    await page.waitForURL(`${app.baseUrl}/`);
    const session = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
    const days = ((session?.expires ?? 0) - Date.now() / 1000) / 86400;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14);
    await context.close();
  });

  it('logs out from the navigation after confirming on the logout page', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/login`);
    await fillLoginForm(page, app.user('foodsharer@example.org'));
    await page.waitForURL(`${app.baseUrl}/`);
    await expect(page.locator('main').textContent()).resolves.toContain('Logged in as Frieda Teiler');

    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL(`${app.baseUrl}/logout`);
    await expect(page.locator('main').textContent()).resolves.toContain('Do you really want to log out?');
    expect((await context.cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(true);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${app.baseUrl}/`);
    await expect(page.locator('main').textContent()).resolves.toContain('You are not logged in.');
    expect((await context.cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(false);
    await page.goto(`${app.baseUrl}/settings/apps`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  });

  it('is German by default', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Anmelden');
    await fillLoginForm(page, app.user('koeln@example.org'), { english: false });
    await page.waitForURL(`${app.baseUrl}/`);
    await expect(page.locator('main').textContent()).resolves.toContain('Angemeldet als Klara Kölsch');
    await context.close();
  });
});
