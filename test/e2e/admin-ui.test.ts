/**
 * The admin screen's aids in a real Chromium: the client list searched and
 * paged with the keyboard, the error summary of a refused form focused with
 * a link to each field, and the copy button of the one-time secret, with the
 * clipboard and, where the clipboard is refused or missing, without.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { afterNavigation, waitForAutofocus } from './helpers/navigation.ts';
import { addNumberedClients } from './helpers/numbered-clients.ts';

const { app, browser } = useDemoAppAndBrowser();

beforeAll(() => addNumberedClients(app, 30));

async function asOrga(): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await browser.newPage();
  await logInInBrowser(opened.page, app.baseUrl, app.user('orga@example.org'));
  return opened;
}

const rowIds = (page: Page) => page.locator('tbody th[scope=row] code').allTextContents();
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('the client list in the browser', () => {
  it('is searched through its form and paged with the keyboard', async () => {
    const { context, page } = await asOrga();
    await page.goto(`${app.baseUrl}/admin/oauthclients`);
    const ids = await rowIds(page);
    expect(ids).toHaveLength(25);
    expect(ids).toEqual([...ids].sort());

    // To page 2 with Tab and Enter: the pager's links are in the keyboard order.
    const next = page.getByRole('link', { name: 'Next page ›' });
    await next.focus();
    await afterNavigation(page, () => page.keyboard.press('Enter'));
    expect(new URL(page.url()).search).toBe('?page=2');
    await expect(page.getByRole('link', { name: 'Page 2' }).getAttribute('aria-current')).resolves.toBe('page');
    await expect(page.getByRole('link', { name: 'Page 1' }).getAttribute('aria-current')).resolves.toBeNull();
    const second = await rowIds(page);
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((id) => !ids.includes(id))).toBe(true);

    // Search: type, Enter.
    const search = page.getByLabel('Search by name or client ID');
    await search.fill('abholung 2');
    await afterNavigation(page, () => search.press('Enter'));
    expect(new URL(page.url()).searchParams.get('q')).toBe('abholung 2');
    await expect(rowIds(page)).resolves.toEqual(['pickup-02', 'pickup-20', 'pickup-21', 'pickup-22', 'pickup-23', 'pickup-24', 'pickup-25', 'pickup-26', 'pickup-27', 'pickup-28', 'pickup-29']);
    await expect(page.locator('#client-count').textContent()).resolves.toBe('Clients 1–11 of 11 matching "abholung 2"');
    await expect(page.getByRole('navigation', { name: 'Pages of the client list' }).count()).resolves.toBe(0);

    await page.getByLabel('Search by name or client ID').fill('no such client');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Search', exact: true }).press('Enter'));
    await expect(page.locator('#client-count').textContent()).resolves.toBe('No clients match "no such client".');
    await expect(page.locator('table').count()).resolves.toBe(0);
    await afterNavigation(page, () => page.getByRole('link', { name: 'Show all clients' }).click());
    await expect(rowIds(page)).resolves.toEqual(ids);
    await context.close();
  });
});

describe('a refused client form in the browser', () => {
  it('focuses the summary, whose links take the focus to each wrong field', async () => {
    const { context, page } = await asOrga();
    await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
    await page.getByLabel('Client ID').fill('has space');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('http://app.example/cb');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Create client' }).click());

    const summary = page.locator('.error-summary');
    await waitForAutofocus(page);
    await expect(page.evaluate(() => document.activeElement?.className)).resolves.toBe('error-summary');
    await expect(summary.getByRole('heading').textContent()).resolves.toBe('Please correct the marked fields.');
    const links = summary.getByRole('link');
    await expect(links.allTextContents()).resolves.toEqual([
      'Client ID: The client ID may contain only letters, digits, "-", "_" and "." and be at most 100 characters long.',
      'Name: Please enter a name.',
      expect.stringMatching(/^Redirect URIs: Invalid: “http:\/\/app\.example\/cb”/),
    ]);
    // From the summary, the keyboard reaches the first link, and Enter moves the focus into the field.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('href'))).resolves.toBe('#clientId');
    await page.keyboard.press('Enter');
    await expect(focusedId(page)).resolves.toBe('clientId');
    await links.nth(2).click();
    await expect(focusedId(page)).resolves.toBe('redirectUris');
    await expect(page.getByLabel('Redirect URIs', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await context.close();
  });
});

/** A new secret for demo-app: the page that shows it once. */
async function secretPage(page: Page): Promise<string> {
  await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/secret`);
  await afterNavigation(page, () => page.getByRole('button', { name: 'Yes, generate a new secret' }).click());
  return page.getByLabel('Client secret').inputValue();
}

/** After the copy button without a clipboard: the hint said, the secret selected in its focused field. */
async function expectSelectedForKeyboard(page: Page, button: string, secret: string, hint: string): Promise<void> {
  await page.getByRole('button', { name: button }).click();
  await page.waitForFunction(() => document.getElementById('copy-status')?.textContent !== '');
  await expect(page.locator('#copy-status').textContent()).resolves.toBe(hint);
  await expect(focusedId(page)).resolves.toBe('client-secret');
  await expect(page.evaluate(() => {
    const field = document.getElementById('client-secret') as HTMLInputElement;
    return field.value.slice(field.selectionStart ?? 0, field.selectionEnd ?? 0);
  })).resolves.toBe(secret);
}

describe('copying the secret', () => {
  it('puts it on the clipboard and says so', async () => {
    const { context, page } = await asOrga();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
    const secret = await secretPage(page);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    const status = page.locator('#copy-status');
    await expect(status.getAttribute('role')).resolves.toBe('status');
    await page.waitForFunction(() => document.getElementById('copy-status')?.textContent !== '');
    await expect(status.textContent()).resolves.toBe('The secret is on the clipboard.');
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);
    await context.close();
  });

  it('where the clipboard is refused, selects the secret and tells to press Ctrl+C (German)', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await Promise.all([page.waitForURL(`${app.baseUrl}/`), fillLoginForm(page, app.user('orga@example.org'), { english: false })]);
    // What a browser answers when the member (or a policy) refused the permission: a rejected
    // promise with a NotAllowedError. (Headless Chromium's permission overrides do not reliably
    // reach writeText, so the refusal is given here, where the page meets it.)
    await page.addInitScript(() => {
      Clipboard.prototype.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
    });
    await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/secret`);
    await afterNavigation(page, () => page.getByRole('button', { name: 'Ja, neues Secret erzeugen' }).click());
    const secret = await page.getByLabel('Client-Secret').inputValue();
    await expectSelectedForKeyboard(page, 'Secret kopieren', secret,
      'Der Browser erlaubt das Kopieren nicht. Das Secret ist markiert: drücke Strg+C (auf dem Mac ⌘C), um es zu kopieren.');
    // Ctrl+C then copies the selection (read back with the permission to read).
    await context.grantPermissions(['clipboard-read'], { origin: app.baseUrl });
    await page.keyboard.press('Control+C');
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);
    await context.close();
  });

  it('where there is no clipboard at all, does the same', async () => {
    const { context, page } = await asOrga();
    await page.addInitScript(() => { delete (Navigator.prototype as { clipboard?: unknown }).clipboard; });
    const secret = await secretPage(page);
    await expectSelectedForKeyboard(page, 'Copy secret', secret, 'The browser does not allow copying. The secret is selected: press Ctrl+C (⌘C on a Mac) to copy it.');
    await context.close();
  });

  it('without scripts, shows no button that could not work', async () => {
    const context = await browser.browser.newContext({ javaScriptEnabled: false, locale: 'en-US' });
    const page = await context.newPage();
    await logInInBrowser(page, app.baseUrl, app.user('orga@example.org'));
    await secretPage(page);
    await expect(page.getByRole('button', { name: 'Copy secret' }).count()).resolves.toBe(0);
    await expect(page.getByLabel('Client secret').getAttribute('readonly')).resolves.toBe('');
    await context.close();
  });
});
