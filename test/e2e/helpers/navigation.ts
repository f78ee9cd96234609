/**
 * Waiting for the page a form submission leads to. `waitForLoadState('load')`
 * alone resolves at once on the page still showing (it is loaded already), so
 * a test could read the old page; this waits for the main frame to commit the
 * new document, then for that document's load.
 */
import type { Page } from 'playwright-core';

export async function afterNavigation(page: Page, action: () => Promise<unknown>): Promise<void> {
  const navigated = page.waitForEvent('framenavigated', (frame) => frame === page.mainFrame());
  await action();
  await navigated;
  await page.waitForLoadState('load');
}

/**
 * Waiting for a page's `autofocus` to land. Chromium moves the focus at its
 * next rendering update, which may come after the load event; a test reading
 * the focus (or pressing Tab) before it would start from the top of the page.
 * A page whose autofocus never lands fails here, on the timeout.
 */
export async function waitForAutofocus(page: Page): Promise<void> {
  await page.waitForFunction(() => document.activeElement !== null && document.activeElement !== document.body);
}
