/**
 * The device authorization grant (RFC 8628) end to end: openid-client v6
 * starts it (`initiateDeviceAuthorization`) and polls (`pollDeviceAuthorizationGrant`)
 * as a command-line tool would, while the member, in a real Chromium, opens
 * `verification_uri_complete`, confirms the code, logs in and answers the
 * consent page, with the keyboard.
 */
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/oauth/clients/clients.service.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm } from './helpers/login.ts';
import { afterNavigation, waitForAutofocus } from './helpers/navigation.ts';
import { CONSENT } from './helpers/consent-page.ts';

const { app, browser } = useDemoAppAndBrowser();
const CLIENT_ID = 'e2e-fridge';
const CLIENT_NAME = 'Fairteiler-Anzeige';

beforeAll(async () => {
  await createClient(app.t.db, app.t.keys, {
    clientId: CLIENT_ID, name: CLIENT_NAME, confidential: false, redirectUris: ['http://127.0.0.1/unused'],
    scopes: ['profile'], grantTypes: ['refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'], requiredRegions: [],
  });
});

async function discover(): Promise<client.Configuration> {
  return client.discovery(new URL(app.baseUrl), CLIENT_ID, undefined, client.None(), { execute: [client.allowInsecureRequests] });
}

/** The member's side: from verification_uri_complete to the consent page. */
async function confirmAndLogIn(page: Page, started: client.DeviceAuthorizationResponse): Promise<void> {
  await page.goto(started.verification_uri_complete!);
  // Prefilled, not yet submitted: the member presses Enter in the focused field.
  await waitForAutofocus(page);
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('user_code');
  expect(await page.locator('#user_code').inputValue()).toBe(started.user_code);
  await afterNavigation(page, () => page.keyboard.press('Enter'));
  // §5.4: the app is named and the code shown; the member confirms with the focused button.
  await expect(page.locator('h1').textContent()).resolves.toBe('Is this the code on your device?');
  await expect(page.locator('#device-user-code').textContent()).resolves.toBe(started.user_code);
  await expect(page.locator('#device-confirm-intro').textContent()).resolves.toContain(CLIENT_NAME);
  await waitForAutofocus(page);
  await afterNavigation(page, () => page.keyboard.press('Enter'));
  expect(new URL(page.url()).pathname).toBe('/login');
  await fillLoginForm(page, app.user('foodsaver@example.org'));
  expect(new URL(page.url()).pathname).toBe('/device/approve');
  await page.getByText(CONSENT.scope.profile).waitFor();
}

describe('device flow: openid-client polls while the member approves in Chromium', () => {
  it('approve: the device gets an ID token of the approving session, and a refresh token', async () => {
    const config = await discover();
    expect(config.serverMetadata().device_authorization_endpoint).toBe(`${app.baseUrl}/oauth/device_authorization`);
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    expect(started.verification_uri).toBe(`${app.baseUrl}/device`);
    const polling = client.pollDeviceAuthorizationGrant(config, started);

    const { context, page } = await browser.newPage();
    await confirmAndLogIn(page, started);
    // Allow is focused first: Enter answers it.
    await waitForAutofocus(page);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(CONSENT.allow);
    await afterNavigation(page, () => page.keyboard.press('Enter'));
    await expect(page.locator('#device-done').textContent()).resolves.toBe(`${CLIENT_NAME} now has access. You may return to your device.`);

    const tokens = await polling;
    const claims = tokens.claims()!;
    const foodsaver = app.user('foodsaver@example.org');
    expect(claims.sub).toBe(String(foodsaver.id));
    const session = await app.t.db.selectFrom('sessions').select(['sid', 'auth_time']).where('user_id', '=', foodsaver.id)
      .orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(claims.sid).toBe(session.sid);
    expect(claims.auth_time).toBe(Math.floor(session.auth_time.getTime() / 1000));
    expect(tokens.scope).toBe('openid profile');
    expect(tokens.refresh_token).toBeTruthy();
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info.sub).toBe(claims.sub);
    await context.close();
  }, 60_000);

  it('deny: the poll ends with access_denied', async () => {
    const config = await discover();
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid' });
    const polling = client.pollDeviceAuthorizationGrant(config, started).then(() => 'tokens', (error: unknown) => error);

    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/device`);
    // Typed by hand, lower case and without the dash.
    await page.getByLabel('Code').fill(started.user_code.toLowerCase().replace('-', ''));
    await afterNavigation(page, () => page.keyboard.press('Enter'));
    await expect(page.locator('h1').textContent()).resolves.toBe('Ist das der Code auf deinem Gerät?');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Ja, weiter' }).click());
    await fillLoginForm(page, app.user('foodsaver@example.org'), { english: false });
    await afterNavigation(page, () => page.getByRole('button', { name: 'Ablehnen' }).click());
    await expect(page.locator('#device-done').textContent()).resolves.toBe(`${CLIENT_NAME} hat keinen Zugriff erhalten. Du kannst diese Seite schließen.`);

    const error = await polling;
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe('access_denied');
    await context.close();
  }, 60_000);
});
