/**
 * One browser test file's demo app and Chromium, started before the file's
 * first test (before its own `beforeAll` hooks) and closed after its last:
 * `const { app, browser } = useDemoAppAndBrowser()` at the top of a file.
 * Both objects forward to what the hooks started, so they can be taken apart
 * at once and used inside hooks and tests.
 */
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, type TestBrowser } from './browser.ts';
import { startDemoApp, type DemoApp } from './demo-app.ts';

export function useDemoAppAndBrowser(): { app: DemoApp; browser: TestBrowser } {
  let started: { app: DemoApp; browser: TestBrowser } | undefined;
  beforeAll(async () => {
    const app = await startDemoApp();
    started = { app, browser: await launchBrowser().catch(async (error: unknown) => { await app.close(); throw error; }) };
  });
  afterAll(async () => {
    await started?.browser.close();
    await started?.app.close();
  });
  const get = () => {
    if (!started) throw new Error('useDemoAppAndBrowser(): app and browser exist inside hooks and tests only');
    return started;
  };
  const app: DemoApp = {
    get t() { return get().app.t; },
    get demo() { return get().app.demo; },
    get baseUrl() { return get().app.baseUrl; },
    user: (email) => get().app.user(email),
    close: () => get().app.close(),
  };
  const browser: TestBrowser = {
    get browser() { return get().browser.browser; },
    newPage: (options) => get().browser.newPage(options),
    close: () => get().browser.close(),
  };
  return { app, browser };
}
