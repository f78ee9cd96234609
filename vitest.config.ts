import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * With TEST_DATABASE_URL the run is about PostgreSQL. The CLI suites below run
 * the CLI on an embedded database in a temporary DATA_DIR whatever the run;
 * the pure unit tests beside the sources, the build step's test (a small
 * project of its own, compiled by `tsc`), the embedded data directory's
 * lock file and the HTTP layer's limits, headers and schemas (no statement
 * of theirs reaches the database) touch no PostgreSQL database: all ran already
 * in the PGlite run (`npm test`), and running them again proves nothing.
 */
const ONLY_ON_EMBEDDED = process.env.TEST_DATABASE_URL
  ? ['test/cli/cli-usage.test.ts', 'test/cli/cli-accounts.test.ts', 'test/cli/cli-clients.test.ts', 'test/cli/cli-client-logout.test.ts', 'test/cli/cli-demo-json.test.ts', 'test/cli/cli-demo-remove.test.ts', 'test/cli/cli-spoofed-names.test.ts', 'test/cli/cli-client-par.test.ts', 'test/cli/cli-client-dpop.test.ts', 'test/cli/cli-tokens.test.ts', 'test/cli/cli-client-transfer.test.ts', 'test/cli/cli-db-backup.test.ts', 'test/cli/cli-audit.test.ts', 'test/cli/cli-user-status.test.ts', 'test/cli/cli-second-factor.test.ts', 'test/main/build-if-stale.test.ts', 'test/db/data-dir-lock.test.ts',
    'test/http/server-limits.test.ts', 'test/http/connection-limit.test.ts', 'test/http/schemas.test.ts', 'test/http/security-headers.test.ts', 'src/**/*.test.ts']
  : [];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**', ...ONLY_ON_EMBEDDED],
    // The slowest tests start real processes (~10 s on a quiet machine); a busy one is several times slower.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs file after file in one module registry: the application, its schemas and
    // validators are imported once per worker, not once per file (a third of the run's CPU time).
    // Each file still builds its own app on its own database (helpers/app.ts). No file mocks
    // modules, stubs the environment or globals; one that must would need a project of its own
    // with `isolate: true`.
    isolate: false,
    // One file more than there are cores (Vitest's default leaves a core idle): many
    // files wait on a child process, a socket or a server's timer much of the time,
    // and a third file uses the core the waiting one leaves. On the 2-core machine,
    // quiet: 164 s with three workers, 177–185 s with two, 168 s with four; earlier,
    // 580 s with two against 792 s with one (docs/performance.md, changes 19 and 23).
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
