/**
 * One-time codes in Chromium, with the keyboard: a member sets them up on
 * /settings/security (the secret read as text from the page, the code
 * computed as an authenticator app computes it), sees the recovery codes once,
 * then logs in with password and code.
 */
import { describe, expect, it } from 'vitest';
import { codeAt } from '../helpers/one-time-codes.ts';
import { makeUser } from '../helpers/factories.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { afterNavigation, waitForAutofocus } from './helpers/navigation.ts';

const { app, browser } = useDemoAppAndBrowser();

describe('one-time codes in the browser', () => {
  it('sets them up from the secret shown, shows ten recovery codes, then asks for a code at the next login', async () => {
    const member = await makeUser(app.t.db, { email: 'otp-e2e@example.org' });
    const { context, page } = await browser.newPage({ locale: 'en-US' });
    await logInInBrowser(page, app.baseUrl, member);
    await page.goto(`${app.baseUrl}/settings/security`);
    await afterNavigation(page, () => page.getByRole('button', { name: 'Set up one-time codes' }).click());
    await expect(page.getByRole('img', { name: 'QR code for your authenticator app' }).locator('svg').count()).resolves.toBe(1);
    const secret = (await page.locator('#otp-secret').textContent())!;
    expect(secret.replace(/ /g, '')).toMatch(/^[A-Z2-7]{32}$/);
    const field = page.getByLabel('Code from the app');
    await field.fill(codeAt(secret, app.t.clock.now()));
    await afterNavigation(page, () => field.press('Enter'));
    await expect(page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).resolves.toBe(10);
    await expect(page.getByRole('link', { name: 'Download the recovery codes as a text file' }).getAttribute('download')).resolves.toBe('recovery-codes.txt');
    await context.close();

    app.t.clock.advance(30);
    const second = await browser.newPage({ locale: 'en-US' });
    await second.page.goto(`${app.baseUrl}/login?return_to=%2Fsettings%2Fapps`);
    await fillLoginForm(second.page, member);
    expect(new URL(second.page.url()).pathname).toBe('/login/second-factor');
    await expect(second.page.locator('h1').textContent()).resolves.toBe('Second step of the login');
    // The code field has the focus: type and press Enter.
    await waitForAutofocus(second.page);
    await second.page.keyboard.type(codeAt(secret, app.t.clock.now()));
    await afterNavigation(second.page, () => second.page.keyboard.press('Enter'));
    expect(new URL(second.page.url()).pathname).toBe('/settings/apps');
    const sessions = await app.t.db.selectFrom('sessions').select('amr').where('user_id', '=', member.id).execute();
    expect(sessions.map((s) => s.amr)).toContainEqual(['pwd', 'otp', 'mfa']);
    await second.context.close();
  });
});
