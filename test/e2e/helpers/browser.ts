/**
 * Debian's Chromium driven by playwright-core. Each launch
 * gets a fresh profile directory, so no cookie or cache survives between tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

export interface TestBrowser {
  readonly browser: Browser;
  /** A new cookie jar; English unless another locale is asked for. */
  newPage(options?: { locale?: string }): Promise<{ context: BrowserContext; page: Page }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'fs-chromium-'));
  // launch() refuses a `--user-data-dir` argument and instead creates a fresh
  // temporary profile per launch itself; HOME and the XDG directories point at
  // a fresh directory too, so Chromium's side files (crash reports, caches)
  // never come from or land in the real home directory.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, HOME: profile, XDG_CONFIG_HOME: profile, XDG_CACHE_HOME: profile },
  });
  return {
    browser,
    async newPage(options = {}) {
      const locale = options.locale ?? 'en-US';
      const context = await browser.newContext({ locale, extraHTTPHeaders: { 'accept-language': locale === 'en-US' ? 'en-US,en;q=0.9' : `${locale},de;q=0.9` } });
      const page = await context.newPage();
      return { context, page };
    },
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
