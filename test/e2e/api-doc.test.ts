/**
 * The API documentation page in a real Chromium, at both addresses the README
 * may be read as giving: every asset it asks for loads, and Swagger UI renders
 * one block per operation of the OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import { useDemoAppAndBrowser } from './helpers/fixture.ts';

const { app, browser } = useDemoAppAndBrowser();

async function countOperations(): Promise<number> {
  const response = await fetch(`${app.baseUrl}/api/openapi.json`);
  const document = await response.json() as { paths: Record<string, Record<string, unknown>> };
  const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);
  return Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => methods.has(key))).length;
}

describe('/api/doc in the browser', () => {
  for (const address of ['/api/doc', '/api/doc/']) {
    it(`${address} loads every asset and renders every operation`, async () => {
      const expected = await countOperations();
      const { context, page } = await browser.newPage();
      const failures: string[] = [];
      page.on('requestfailed', (request) => failures.push(`${request.url()} (${request.failure()?.errorText})`));
      page.on('response', (response) => {
        if (response.status() >= 400) failures.push(`${response.url()} (${response.status()})`);
      });
      page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));

      await page.goto(`${app.baseUrl}${address}`);
      const operations = page.locator('.opblock');
      await operations.first().waitFor();
      await page.waitForFunction((n) => document.querySelectorAll('.opblock').length >= n, expected);

      expect(failures).toEqual([]);
      expect(await operations.count()).toBe(expected);
      expect(expected).toBeGreaterThan(20);
      await context.close();
    });
  }
});
