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
import { beforeAll, describe, expect, it } from 'vitest';
import { storeUnlockToken } from '../../src/accounts/login-unlock.ts';
import { RECENT_SIGN_IN_SECONDS } from '../../src/accounts/recent-sign-in.ts';
import { confirmEnrolment, pendingEnrolmentSecret, startEnrolment } from '../../src/accounts/one-time-codes/one-time-codes.service.ts';
import { NO_EVENT_LOG } from '../../src/ops/security-events.ts';
import { derivedKeys } from '../../src/oauth/keys/derived-keys.ts';
import { makeUser, TEST_PASSWORD } from '../helpers/factories.ts';
import { codeAt } from '../helpers/one-time-codes.ts';
import { storeResetToken } from '../../src/accounts/password-reset.ts';
import { randomToken } from '../../src/accounts/sessions.ts';
import { createClient, findClient } from '../../src/oauth/clients/clients.service.ts';
import { rememberConsent } from '../../src/oauth/consent/consents.repository.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm } from './helpers/login.ts';
import { afterNavigation, waitForAutofocus } from './helpers/navigation.ts';
import { addNumberedClients } from './helpers/numbered-clients.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const LOCALES = { en: 'en-US', de: 'de-DE' } as const;

const { app, browser } = useDemoAppAndBrowser();

// Enough clients for the admin list to have pages.
beforeAll(() => addNumberedClients(app, 30));
/** A member with one-time codes turned on, for the second step, the step-up page and the recovery codes. */
const CODES_USER = { email: 'codes@example.org', password: TEST_PASSWORD };
let codesSecret = '';
/** The next code of the member's app: the clock moves a step first, as a code is accepted once. */
function nextCode(): string {
  app.t.clock.advance(30);
  return codeAt(codesSecret, app.t.clock.now());
}

beforeAll(async () => {
  const user = await makeUser(app.t.db, { email: CODES_USER.email });
  const derived = derivedKeys(app.t.keys);
  const keys = { secret: derived.oneTimeCodeSecret, recoveryCode: derived.recoveryCode };
  await startEnrolment(app.t.db, keys, app.t.clock.now, user.id);
  codesSecret = (await pendingEnrolmentSecret(app.t.db, keys, user.id))!;
  await confirmEnrolment(app.t.db, keys, app.t.clock.now, { userId: user.id, email: user.email }, nextCode(), NO_EVENT_LOG);
});

interface Violation { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }

async function violationsOf(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the pages' CSP (script-src 'self') rightly refuses an injected tag.
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
    // Violations only: axe then keeps no detail of the passed and incomplete checks.
    // Beside WCAG A and AA, one best practice: landmarks of one kind have distinct names (a screen reader's list of them).
    return axe.run(document, { runOnly: { type: 'tag', values: tags }, rules: { 'landmark-unique': { enabled: true } }, resultTypes: ['violations'] });
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

/** A live unlock link for the demo foodsaver, made as the mail's composer makes it. */
async function unlockLink(): Promise<string> {
  const token = randomToken();
  const user = await app.t.db.selectFrom('users').select(['id', 'email']).where('email', '=', 'foodsaver@example.org').executeTakeFirstOrThrow();
  await storeUnlockToken(app.t.db, { token, account: user.email, userId: user.id, returnTo: '/' }, app.t.clock.now());
  return `${app.baseUrl}/login/unlock/${token}`;
}

/** A live user code of a device asking (RFC 8628), from a client that holds the device grant. */
async function deviceUserCode(): Promise<string> {
  const clientId = 'a11y-device';
  if (!(await findClient(app.t.db, clientId))) {
    await createClient(app.t.db, app.t.keys, {
      clientId, name: 'Fairteiler-Anzeige', confidential: false, redirectUris: ['http://127.0.0.1/unused'],
      scopes: ['profile'], grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'], requiredRegions: [],
    });
  }
  const response = await fetch(`${app.baseUrl}/oauth/device_authorization`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: clientId, scope: 'openid profile' }),
  });
  return ((await response.json()) as { user_code: string }).user_code;
}

/** The device flow from its verification URI to the page after the confirmation. */
async function confirmDeviceCode(page: Page): Promise<void> {
  await page.goto(`${app.baseUrl}/device?user_code=${await deviceUserCode()}`);
  await afterNavigation(page, () => page.locator('form button[type=submit]').click());
  await afterNavigation(page, () => page.locator('form button[type=submit]').click());
}

/**
 * A passkey of the member with one-time codes, stored as a registration stores one, for the list on
 * /settings/security (a member with a passkey is asked for a second factor at login: this one has it anyway).
 */
async function givePasskey(): Promise<void> {
  const user = await app.t.db.selectFrom('users').select('id').where('email', '=', CODES_USER.email).executeTakeFirstOrThrow();
  await app.t.db.insertInto('passkeys').values({
    user_id: user.id, credential_id: `a11y-${user.id}`, public_key: Buffer.alloc(77), device_type: 'multiDevice', backed_up: true, name: 'Pixel 9 (Chrome)',
  }).onConflict((oc) => oc.column('credential_id').doNothing()).execute();
}

/** Each page: how to reach it in a fresh browser context, as which user. */
const PAGES: Array<{ name: string; as?: string; open(page: Page, english: boolean): Promise<void> }> = [
  { name: 'login', open: async (page) => { await page.goto(`${app.baseUrl}/login`); } },
  {
    // The login for an app's request names the app.
    name: 'login for an app',
    open: async (page) => {
      const authorize = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: 'http://127.0.0.1:3000/callback', scope: 'openid' })}`;
      await page.goto(`${app.baseUrl}/login?${new URLSearchParams({ return_to: authorize })}`);
    },
  },
  {
    name: 'login with an error',
    open: async (page, english) => {
      await page.goto(`${app.baseUrl}/login`);
      await fillLoginForm(page, { email: 'nobody@example.org', password: 'wrong password' }, { english });
    },
  },
  { name: 'unlock', open: async (page) => { await page.goto(`${app.baseUrl}/login/unlock`); } },
  {
    name: 'unlock with an error',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/login/unlock`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
      await page.locator('#unlock-error').waitFor();
    },
  },
  {
    name: 'unlock: sent',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/login/unlock`);
      await page.locator('#email').fill('nobody@example.org');
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
    },
  },
  { name: 'unlock: confirmation', open: async (page) => { await page.goto(await unlockLink()); } },
  // Said on opening, without a button to press.
  { name: 'unlock: invalid link', open: async (page) => { await page.goto(`${app.baseUrl}/login/unlock/${'x'.repeat(43)}`); } },
  {
    name: 'unlock: done, back on the login',
    open: async (page) => {
      await page.goto(await unlockLink());
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
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
  { name: 'home', open: async (page) => { await page.goto(`${app.baseUrl}/`); } },
  { name: 'home: member', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/`); } },
  { name: 'home: organisation member', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/`); } },
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
  { name: 'device: code entry', open: async (page) => { await page.goto(`${app.baseUrl}/device`); } },
  {
    name: 'device: wrong code',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/device?user_code=BBBB-BBBB`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
      await page.locator('#device-error').waitFor();
    },
  },
  {
    name: 'device: confirmation',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/device?user_code=${await deviceUserCode()}`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
      await page.locator('#device-user-code').waitFor();
    },
  },
  { name: 'device: consent', as: 'foodsaver@example.org', open: confirmDeviceCode },
  {
    name: 'device: done',
    as: 'foodsaver@example.org',
    open: async (page) => {
      await confirmDeviceCode(page);
      await afterNavigation(page, () => page.locator('button[value=allow]').click());
      await page.locator('#device-done').waitFor();
    },
  },
  {
    name: 'device: answered already',
    as: 'foodsaver@example.org',
    open: async (page) => {
      await confirmDeviceCode(page);
      const approveUrl = page.url();
      await afterNavigation(page, () => page.locator('button[value=allow]').click());
      await page.goto(approveUrl);
    },
  },
  { name: 'device: a link from another browser', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/device/approve?continuation=${'x'.repeat(43)}`); } },
  { name: 'not found', open: async (page) => { await page.goto(`${app.baseUrl}/no-such-page`); } },
  {
    name: 'my apps, one remembered with every scope',
    as: 'foodsaver@example.org',
    open: async (page) => {
      const clientId = 'axe-remembered';
      if (!(await findClient(app.t.db, clientId))) {
        await createClient(app.t.db, app.t.keys, {
          clientId, name: 'Lebensmittelretter-Kalender (Web-App)', confidential: true, redirectUris: ['https://calendar.example/callback'],
          scopes: ['openid', 'profile', 'email', 'regions'], grantTypes: ['authorization_code'], requiredRegions: [],
        });
        const row = await app.t.db.selectFrom('oauth_clients').select('id').where('client_id', '=', clientId).executeTakeFirstOrThrow();
        await rememberConsent(app.t.db, app.user('foodsaver@example.org').id, row.id, ['openid', 'profile', 'email', 'regions'], new Date());
      }
      await page.goto(`${app.baseUrl}/settings/apps`);
    },
  },
  { name: 'security: sessions', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/settings/security?ended=1`); } },
  {
    name: 'security: setting up one-time codes (QR code, secret)',
    as: 'foodsaver@example.org',
    open: async (page, english) => {
      // The setup an earlier language or width began starts afresh.
      await app.t.db.deleteFrom('one_time_code_secrets').where('user_id', '=', app.user('foodsaver@example.org').id).execute();
      await page.goto(`${app.baseUrl}/settings/security`);
      await afterNavigation(page, () => page.getByRole('button', { name: english ? 'Set up one-time codes' : 'Einmalcodes einrichten' }).click());
    },
  },
  {
    name: 'security: a wrong first code',
    as: 'foodsaver@example.org',
    open: async (page, english) => {
      await page.locator('#otp-confirm-code').fill('000000');
      await afterNavigation(page, () => page.getByRole('button', { name: english ? 'Turn on one-time codes' : 'Einmalcodes einschalten' }).click());
    },
  },
  {
    name: 'second step of the login, a wrong code',
    open: async (page, english) => {
      await page.goto(`${app.baseUrl}/login`);
      await fillLoginForm(page, CODES_USER, { english });
      await page.locator('#code').fill('000000');
      await afterNavigation(page, () => page.locator('#code').press('Enter'));
    },
  },
  { name: 'security: one-time codes on', as: CODES_USER.email, open: async (page) => { await page.goto(`${app.baseUrl}/settings/security`); } },
  {
    name: 'security: new recovery codes, shown once',
    as: CODES_USER.email,
    open: async (page) => {
      await page.locator('#otp-regenerate-code').fill(nextCode());
      await afterNavigation(page, () => page.locator('#otp-regenerate-code').press('Enter'));
      await page.locator('.recovery-codes').waitFor();
    },
  },
  { name: 'step-up page', as: CODES_USER.email, open: async (page) => { await page.goto(`${app.baseUrl}/login/second-factor?return_to=%2Fsettings%2Fapps`); } },
  {
    name: 'step-up page for an app',
    as: CODES_USER.email,
    open: async (page) => {
      const authorize = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'demo-app', redirect_uri: 'http://127.0.0.1:3000/callback', scope: 'openid', acr_values: 'urn:foodsharing:acr:mfa' })}`;
      await page.goto(`${app.baseUrl}/login/second-factor?${new URLSearchParams({ return_to: authorize })}`);
    },
  },
  {
    // Signed in with a passkey that verified nobody: no code field (a second thing held), a new sign-in with the password instead.
    name: 'step-up page, signed in without the password',
    as: CODES_USER.email,
    open: async (page) => {
      const { id } = await app.t.db.selectFrom('users').select('id').where('email', '=', CODES_USER.email).executeTakeFirstOrThrow();
      const sessions = app.t.db.updateTable('sessions').where('user_id', '=', id);
      await sessions.set({ amr: ['hwk'] }).execute();
      try {
        await page.goto(`${app.baseUrl}/login/second-factor?return_to=%2Fsettings%2Fapps`);
        await page.locator('a[href="/login?return_to=%2Fsettings%2Fapps"]').waitFor();
      } finally {
        // Signed in with the password and a code, as before, for the pages after this one.
        await sessions.set({ amr: ['pwd', 'otp', 'mfa'] }).execute();
      }
    },
  },
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
    as: CODES_USER.email,
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
  {
    // Too long after the sign-in to change the factors: the page offers to sign in again instead of those forms.
    name: 'security: signed in too long ago',
    as: 'foodsaver@example.org',
    open: async (page) => {
      app.t.clock.advance(RECENT_SIGN_IN_SECONDS + 1);
      await page.goto(`${app.baseUrl}/settings/security`);
      await page.locator('a[href="/login?return_to=%2Fsettings%2Fsecurity"]').first().waitFor();
    },
  },
  { name: 'admin: forbidden', as: 'foodsaver@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients`); } },
  { name: 'admin: client list', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients`); } },
  { name: 'admin: client list, searched, page 2', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients?q=pickup&page=2`); } },
  { name: 'admin: client list, no match', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients?q=nothing`); } },
  { name: 'admin: new client form', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/oauthclients/new`); } },
  {
    name: 'admin: form with errors',
    as: 'orga@example.org',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').last().click());
    },
  },
  {
    name: 'admin: form with a refused key set',
    as: 'orga@example.org',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
      await page.locator('#tokenEndpointAuthMethod').selectOption('private_key_jwt');
      await page.locator('#jwks').fill('{"keys": [');
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
  {
    name: 'admin: the secret, after the copy button',
    as: 'orga@example.org',
    open: async (page, english) => {
      // Granted, so that no permission prompt waits for an answer.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      await page.goto(`${app.baseUrl}/admin/oauthclients/demo-app/secret`);
      await afterNavigation(page, () => page.locator('form button[type=submit]').first().click());
      await page.getByRole('button', { name: english ? 'Copy secret' : 'Secret kopieren' }).click();
      await page.waitForFunction(() => document.getElementById('copy-status')?.textContent !== '');
    },
  },
  // After the secret above: the audit log lists at least that change.
  { name: 'admin: audit log', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/audit`); } },
  { name: 'admin: audit log, bad filters', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/audit?member=nobody&from=yesterday`); } },
  { name: 'admin: members', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/users?q=example`); } },
  { name: 'admin: members, none found', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/users?q=nobody-at-all`); } },
  // The foodsaver logged in above: the page lists a live session.
  { name: 'admin: a member', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/users/${app.user('foodsaver@example.org').id}?done=sessions&sessions=0&grants=0`); } },
  { name: 'admin: oneself as a member', as: 'orga@example.org', open: async (page) => { await page.goto(`${app.baseUrl}/admin/users/${app.user('orga@example.org').id}`); } },
  {
    name: 'admin: deleting a member, a wrong email',
    as: 'orga@example.org',
    open: async (page) => {
      await page.goto(`${app.baseUrl}/admin/users/${app.user('koeln@example.org').id}/delete`);
      await page.locator('#delete-email').fill('someone-else@example.org');
      await afterNavigation(page, () => page.locator('form button[type=submit]').click());
      await page.locator('#delete-error').waitFor();
    },
  },
];

/** One browser context per user: logged in once, then every page of that user in turn. */
async function checkPages(locale: string, viewport: { width: number; height: number }, english: boolean) {
  const found: Record<string, string[]> = {};
  const overflowing: Record<string, number> = {};
  for (const user of [undefined, 'foodsaver@example.org', 'orga@example.org', CODES_USER.email]) {
    const { context, page } = await browser.newPage({ locale });
    await page.setViewportSize(viewport);
    if (user) {
      await page.goto(`${app.baseUrl}/login`);
      await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, user === CODES_USER.email ? CODES_USER : app.user(user), { english })]);
    }
    if (user === CODES_USER.email) {
      // This member's login stops at the second step: checked, then passed with a code.
      const violations = await violationsOf(page);
      if (violations.length > 0) found['second step of the login'] = violations;
      await page.locator('#code').fill(nextCode());
      await afterNavigation(page, () => page.locator('#code').press('Enter'));
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

/** One run opens every page above: a few seconds a page on a busy machine, so more than the file's default minute. */
const ALL_PAGES_MS = 300_000;

describe('accessibility (axe-core, WCAG 2.1 AA)', () => {
  for (const [language, locale] of Object.entries(LOCALES)) {
    for (const [width, viewport] of Object.entries(VIEWPORTS)) {
      it(`every page in ${language} at ${width} width`, { timeout: ALL_PAGES_MS }, async () => {
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
    await waitForAutofocus(page);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
    await fillLoginForm(page, { email: 'nobody@example.org', password: 'wrong password' });
    await waitForAutofocus(page);
    expect(await focusedText(page)).toBe(await page.getByRole('alert').textContent());
    await context.close();
  });

  it('on the client form: the summary, with a link to each wrong field', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${app.baseUrl}/login`);
    await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, app.user('orga@example.org'))]);
    await page.goto(`${app.baseUrl}/admin/oauthclients/new`);
    await afterNavigation(page, () => page.locator('form button[type=submit]').last().click());
    await waitForAutofocus(page);
    expect(await focusedText(page)).toBe(await page.getByRole('alert').textContent());
    await expect(page.getByRole('alert').getByRole('heading').textContent()).resolves.toBe('Please correct the marked fields.');
    await expect(page.getByRole('alert').getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href'))))
      .resolves.toEqual(['#clientId', '#name', '#redirectUris']);
    await context.close();
  });
});

describe('the language switch in the browser', () => {
  it('switches a German page to English and keeps English on the next pages', async () => {
    const { context, page } = await browser.newPage({ locale: 'de-DE' });
    await page.goto(`${app.baseUrl}/login`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Anmelden');
    // The switch redirects back to the page's own URL: wait for the new document, not the URL.
    await afterNavigation(page, () => page.getByRole('link', { name: 'English' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/login`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Log in');
    await Promise.all([page.waitForURL(`${app.baseUrl}/`), fillLoginForm(page, app.user('foodsaver@example.org'))]);
    await page.goto(`${app.baseUrl}/settings/apps`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await afterNavigation(page, () => page.getByRole('link', { name: 'Deutsch' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/settings/apps`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('de');
    await context.close();
  });
});
