/** Logging in through the real /login form, with the keyboard, as a person would. */
import { afterNavigation } from './navigation.ts';
import type { Page } from 'playwright-core';

export async function fillLoginForm(page: Page, credentials: { email: string; password: string }, options: { remember?: boolean; english?: boolean } = {}): Promise<void> {
  const english = options.english ?? true;
  await page.getByLabel(english ? 'Email address' : 'E-Mail-Adresse').fill(credentials.email);
  if (options.remember) await page.getByLabel(english ? 'Stay logged in' : 'Angemeldet bleiben').check();
  const password = page.getByLabel(english ? 'Password' : 'Passwort', { exact: true });
  await password.fill(credentials.password);
  // The page the submission leads to (the login page again after a refusal), not the load state the form page already has.
  await afterNavigation(page, () => password.press('Enter'));
}

/** Opens /login directly and logs in; resolves once the next page has loaded. */
export async function logInInBrowser(page: Page, baseUrl: string, credentials: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), fillLoginForm(page, credentials)]);
}
