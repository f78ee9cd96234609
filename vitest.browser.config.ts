import { defineConfig } from 'vitest/config';

/** Browser tests: real Chromium (Debian's) driven by playwright-core. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    globalSetup: ['test/helpers/global-setup.ts'],
    fileParallelism: false,
    // One worker for every file, its modules imported once (each file still starts its own app and Chromium).
    isolate: false,
  },
});
