/**
 * The members of the admin screen in a real Chromium, by labels and the
 * keyboard: an orga member finds a member by search (paging with the
 * keyboard), disables them — their sign-in is refused with the message —
 * and enables them again; deletes a member after typing the email (a wrong
 * one deletes nothing); and filters the audit log by member and event.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeUser } from '../helpers/factories.ts';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';
import { fillLoginForm, logInInBrowser } from './helpers/login.ts';
import { afterNavigation } from './helpers/navigation.ts';

const { app, browser } = useDemoAppAndBrowser();

async function openAsOrga(): Promise<{ page: Page; close(): Promise<void> }> {
  const { context, page } = await browser.newPage();
  await logInInBrowser(page, app.baseUrl, app.user('orga@example.org'));
  return { page, close: () => context.close() };
}

/** Signs in as `email` in a fresh browser; the page it ends on and the alert, if any. */
async function signIn(email: string): Promise<{ path: string; alert: string | null }> {
  const { context, page } = await browser.newPage();
  await page.goto(`${app.baseUrl}/login`);
  await fillLoginForm(page, app.user(email));
  const alert = await page.getByRole('alert').count() > 0 ? await page.getByRole('alert').textContent() : null;
  const path = new URL(page.url()).pathname;
  await context.close();
  return { path, alert };
}

async function search(page: Page, text: string): Promise<void> {
  const field = page.getByLabel('Name or email address');
  await field.fill(text);
  await afterNavigation(page, () => field.press('Enter'));
}

describe('members on the admin screen', () => {
  it('finds a member by search, pages with the keyboard, disables them (sign-in refused) and enables them (sign-in works)', async () => {
    for (let i = 0; i < 27; i += 1) await makeUser(app.t.db, { firstName: 'Pager', lastName: `Person${String(i).padStart(2, '0')}` });
    const { page, close } = await openAsOrga();
    await afterNavigation(page, () => page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Members' }).click());
    expect(new URL(page.url()).pathname).toBe('/admin/users');

    await search(page, 'pager');
    await expect(page.locator('tbody tr').count()).resolves.toBe(25);
    await page.getByRole('link', { name: 'Next →' }).focus();
    await afterNavigation(page, () => page.keyboard.press('Enter'));
    expect(page.url()).toBe(`${app.baseUrl}/admin/users?q=pager&page=2`);
    await expect(page.locator('tbody th').allTextContents()).resolves.toEqual(['Pager Person25', 'Pager Person26']);
    await expect(page.getByRole('link', { name: 'Next →' }).count()).resolves.toBe(0);

    await search(page, 'KLARA KÖ');
    await expect(page.locator('tbody th').allTextContents()).resolves.toEqual(['Klara Kölsch']);
    await afterNavigation(page, () => page.getByRole('link', { name: 'Klara Kölsch' }).click());
    await expect(page.locator('h1').textContent()).resolves.toBe('Klara Kölsch');

    await afterNavigation(page, () => page.getByRole('button', { name: 'Disable member' }).click());
    await expect(page.getByRole('status').textContent()).resolves.toBe('The member is disabled. Sessions ended: 0; app grants revoked: 0.');
    expect(await signIn('koeln@example.org')).toEqual({ path: '/login', alert: 'This account is disabled. Please contact the organisation team.' });

    await afterNavigation(page, () => page.getByRole('button', { name: 'Enable member' }).click());
    await expect(page.getByRole('status').textContent()).resolves.toBe('The member is enabled and can sign in again.');
    expect(await signIn('koeln@example.org')).toEqual({ path: '/', alert: null });
    await close();
  });

  it('deletes a member only after the email is typed exactly', async () => {
    const target = app.user('foodsharer@example.org');
    const { page, close } = await openAsOrga();
    await page.goto(`${app.baseUrl}/admin/users/${target.id}`);
    await afterNavigation(page, () => page.getByRole('link', { name: 'Delete member …' }).click());
    const field = page.getByLabel(`To confirm, type the member's email address: ${target.email}`);
    await field.fill('FOODSHARER@example.org');
    await afterNavigation(page, () => field.press('Enter'));
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The email address does not match. Nothing was deleted.');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await app.t.db.selectFrom('users').select(['email', 'deleted_at']).where('id', '=', target.id).executeTakeFirst()).toEqual({ email: target.email, deleted_at: null });

    await field.fill(target.email);
    await afterNavigation(page, () => page.getByRole('button', { name: 'Delete for good' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/admin/users?deleted=${target.id}`);
    await expect(page.getByRole('status').textContent()).resolves.toBe(`Member ${target.id} was deleted.`);
    await search(page, 'Frieda');
    await expect(page.getByText('No members found.').count()).resolves.toBe(1);
    expect(await signIn('foodsharer@example.org')).toEqual({ path: '/login', alert: 'Wrong email or password.' });
    await close();
  });

  it('the audit log filtered by member (from the member page) and by event', async () => {
    const klara = app.user('koeln@example.org');
    await app.t.app.securityEvents.settled();
    const { page, close } = await openAsOrga();
    await page.goto(`${app.baseUrl}/admin/users/${klara.id}`);
    await afterNavigation(page, () => page.getByRole('link', { name: 'All events of this member in the audit log' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/admin/audit?member=${klara.id}`);
    const memberCells = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(memberCells.length).toBeGreaterThanOrEqual(3);
    for (const cell of memberCells) expect(cell).toBe(`${klara.id} (${klara.email})`);

    await page.getByLabel('Event').selectOption('account.member.disabled');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Filter' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/admin/audit?member=${klara.id}&actor=&client=&from=&to=&event=account.member.disabled`);
    await expect(page.locator('tbody th').allTextContents()).resolves.toEqual(['account.member.disabled']);
    expect(JSON.parse(await page.locator('tbody td').nth(4).textContent() ?? '')).toEqual({ actorId: app.user('orga@example.org').id, sessionsEnded: 0, grantsRevoked: 0 });

    await page.getByLabel('Member (id or email)').fill('');
    await page.getByLabel('Event').selectOption('account.login.disabled');
    await afterNavigation(page, () => page.getByRole('button', { name: 'Filter' }).click());
    await expect(page.locator('tbody th').allTextContents()).resolves.toEqual(['account.login.disabled (warning)']);
    await expect(page.locator('tbody tr td:nth-child(3)').allTextContents()).resolves.toEqual([`${klara.id} (${klara.email})`]);

    await afterNavigation(page, () => page.getByRole('link', { name: 'Clear filters' }).click());
    expect(page.url()).toBe(`${app.baseUrl}/admin/audit`);
    await close();
  });
});
