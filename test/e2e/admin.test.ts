/**
 * The client admin screen in a real Chromium, driven by keyboard and labels: an
 * orga member creates a client with every field through labelled controls and
 * the keyboard, sees the secret once, corrects a rejected form, edits,
 * regenerates the secret and deletes the client.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { isClientSecretValid } from '../../src/oauth/clients/client-secret.ts';
import { findClientRow } from '../../src/oauth/clients/clients.repository.ts';
import { findClient } from '../../src/oauth/clients/clients.service.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { logInInBrowser } from './helpers/login.ts';
import { afterNavigation } from './helpers/navigation.ts';

const { app, browser } = useDemoAppAndBrowser();

async function secretDigest(clientId: string) {
  return (await findClientRow(app.t.db, clientId))?.secret_digest ?? null;
}

async function submitWithEnter(page: Page, label: string): Promise<void> {
  await afterNavigation(page, () => page.getByLabel(label, { exact: true }).press('Enter'));
}

describe('admin screen in the browser', () => {
  it('is closed to members who are not orga', async () => {
    const { context, page } = await browser.newPage();
    await logInInBrowser(page, app.baseUrl, app.user('ambassador@example.org'));
    await expect(page.getByRole('link', { name: 'OAuth clients' }).count()).resolves.toBe(0);
    const response = await page.goto(`${app.baseUrl}/admin/oauthclients`);
    expect(response?.status()).toBe(403);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('You are not allowed to see this page.');
    await context.close();
  });

  it('creates, edits, regenerates and deletes a client, showing each secret once', async () => {
    const { context, page } = await browser.newPage();
    await logInInBrowser(page, app.baseUrl, app.user('orga@example.org'));
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'OAuth clients' }).click();
    await page.waitForURL(`${app.baseUrl}/admin/oauthclients`);
    await page.getByRole('link', { name: '+ Create new client' }).click();
    await page.waitForURL(`${app.baseUrl}/admin/oauthclients/new`);

    // The fields come in reading order for the keyboard.
    await page.getByLabel('Client ID').focus();
    const order: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => document.activeElement?.id ?? ''));
    }
    expect(order).toEqual([
      'name', 'confidential', 'redirectUris', 'postLogoutRedirectUris', 'backchannelLogoutUri', 'backchannelLogoutSessionRequired',
      'requirePushedAuthorizationRequests', 'scope-profile', 'scope-email', 'scope-regions',
    ]);

    // A first attempt with a bad redirect URI: the message sits next to the field.
    await page.getByLabel('Client ID').fill('browser-app');
    await page.getByLabel('Name', { exact: true }).fill('Browser App');
    await page.getByLabel('Redirect URIs', { exact: true }).fill('http://app.example/callback');
    await page.getByLabel('Client ID').focus();
    await submitWithEnter(page, 'Client ID');
    await expect(page.getByRole('alert').getByRole('heading').textContent()).resolves.toBe('Please correct the marked fields.');
    const uris = page.getByLabel('Redirect URIs', { exact: true });
    await expect(uris.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#redirectUris-error').textContent()).resolves.toContain('Invalid: “http://app.example/callback”');
    await expect(uris.getAttribute('aria-describedby')).resolves.toBe('redirectUris-help redirectUris-error');
    await expect(page.getByLabel('Client ID').inputValue()).resolves.toBe('browser-app');
    expect(await findClient(app.t.db, 'browser-app')).toBeUndefined();

    // Every field, with the keyboard where a person would use it.
    await uris.fill('');
    await uris.focus();
    await page.keyboard.type('https://app.example/callback');
    await page.keyboard.press('Enter');
    await page.keyboard.type('http://127.0.0.1:5173/callback');
    await page.getByLabel('profile – name and profile picture').check();
    await page.getByLabel('email – email address').press('Space');
    await page.getByLabel('refresh_token').check();
    await expect(page.getByLabel('Confidential client (server application holding a client secret)').isChecked()).resolves.toBe(true);
    await page.getByLabel('Required regions').selectOption([{ label: 'Deutschland › Berlin' }, { label: 'Deutschland › Köln' }]);
    await page.screenshot({ path: '/tmp/e2e-admin-form.png', fullPage: true });
    await afterNavigation(page, () => page.getByRole('button', { name: 'Create client' }).press('Enter'));

    const secret = await page.getByLabel('Client secret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(page.locator('#client-id').textContent()).resolves.toBe('browser-app');
    await page.screenshot({ path: '/tmp/e2e-admin-secret.png', fullPage: true });
    const berlin = app.demo.regions.find((r) => r.name === 'Berlin')?.id;
    const cologne = app.demo.regions.find((r) => r.name === 'Köln')?.id;
    expect(await findClient(app.t.db, 'browser-app')).toMatchObject({
      name: 'Browser App', confidential: true,
      redirectUris: ['https://app.example/callback', 'http://127.0.0.1:5173/callback'],
      scopes: ['openid', 'profile', 'email'], grantTypes: ['authorization_code', 'refresh_token'],
      requiredRegions: [berlin, cologne],
    });
    expect(isClientSecretValid(app.t.keys, await secretDigest('browser-app'), secret)).toBe(true);

    // Back to the list: the secret is not shown again, and reloading does not bring it back.
    // The secret page has the list's URL (the form posted there): wait for the new document, not the URL.
    await afterNavigation(page, () => page.getByRole('link', { name: 'I have saved the secret – back to the list' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/admin/oauthclients`);
    await expect(page.content()).resolves.not.toContain(secret);
    await page.screenshot({ path: '/tmp/e2e-admin-list.png', fullPage: true });
    await expect(page.locator('tr', { hasText: 'browser-app' }).textContent()).resolves.toContain('Deutschland › Berlin, Deutschland › Köln');

    // Edit.
    await afterNavigation(page, () => page.getByRole('link', { name: 'Edit: Browser App' }).click());
    await expect(page.content()).resolves.not.toContain(secret);
    await expect(page.getByLabel('Redirect URIs', { exact: true }).inputValue()).resolves.toBe('https://app.example/callback\nhttp://127.0.0.1:5173/callback');
    await page.getByLabel('Name', { exact: true }).fill('Browser App 2');
    await page.getByLabel('refresh_token').uncheck();
    await submitWithEnter(page, 'Name');
    await page.waitForURL(`${app.baseUrl}/admin/oauthclients?updated=browser-app`);
    await expect(page.getByRole('status').textContent()).resolves.toBe('The client "browser-app" was saved.');
    expect(await findClient(app.t.db, 'browser-app')).toMatchObject({ name: 'Browser App 2', grantTypes: ['authorization_code'] });

    // Regenerate: confirm, the new secret is shown once, the old one stops working.
    await afterNavigation(page, () => page.getByRole('link', { name: 'Generate new secret: Browser App 2' }).click());
    await expect(page.locator('h1').textContent()).resolves.toBe('Generate a new secret for "Browser App 2"?');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Yes, generate a new secret' }).press('Enter'));
    const newSecret = await page.getByLabel('Client secret').inputValue();
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecret).not.toBe(secret);
    const digest = await secretDigest('browser-app');
    expect(isClientSecretValid(app.t.keys, digest, secret)).toBe(false);
    expect(isClientSecretValid(app.t.keys, digest, newSecret)).toBe(true);
    await page.goBack();
    await page.goto(`${app.baseUrl}/admin/oauthclients`);
    await expect(page.content()).resolves.not.toContain(newSecret);

    // Delete, with a confirmation; cancelling keeps the client.
    await afterNavigation(page, () => page.getByRole('link', { name: 'Delete: Browser App 2' }).click());
    await afterNavigation(page, () => page.getByRole('link', { name: 'Cancel' }).click());
    expect(await findClient(app.t.db, 'browser-app')).toBeDefined();
    await afterNavigation(page, () => page.getByRole('link', { name: 'Delete: Browser App 2' }).click());
    await expect(page.locator('h1').textContent()).resolves.toBe('Delete client "Browser App 2"?');
    await Promise.all([page.waitForURL(`${app.baseUrl}/admin/oauthclients?deleted=browser-app`), page.getByRole('button', { name: 'Yes, delete it' }).click()]);
    await expect(page.getByRole('status').textContent()).resolves.toBe('The client "browser-app" was deleted.');
    await expect(page.locator('tr', { hasText: 'browser-app' }).count()).resolves.toBe(0);
    expect(await findClient(app.t.db, 'browser-app')).toBeUndefined();
    await context.close();
  });

  it('is German by default', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await page.getByLabel('E-Mail-Adresse').fill('orga@example.org');
    await page.getByLabel('Passwort', { exact: true }).fill(app.user('orga@example.org').password);
    await Promise.all([page.waitForURL(`${app.baseUrl}/`), page.getByLabel('Passwort', { exact: true }).press('Enter')]);
    await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Neuen Client erstellen');
    await expect(page.getByLabel('Erforderliche Bezirke').count()).resolves.toBe(1);
    await context.close();
  });
});
