/** `npm start` on PostgreSQL (only with TEST_DATABASE_URL): an empty database, production without the demo. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { freePort } from '../helpers/oauth.ts';
import { start, START_TEST_TIMEOUT_MS, useStartDataDir, waitFor } from './start-process.ts';

const work = useStartDataDir();

describe('npm start', { timeout: START_TEST_TIMEOUT_MS }, () => {
  it.runIf(TEST_DATABASE_URL)('in production: never loads the demo dataset, and warns about keys generated per instance', async () => {
    const schema = `test_start_prod_${Date.now()}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const keysDir = await mkdtemp(path.join(tmpdir(), 'fs-start-prod-'));
    try {
      const port = await freePort();
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const running = start({ NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', PORT: String(port), HOST: '127.0.0.1',
        DATA_DIR: keysDir, DATABASE_URL: url.toString(), MAIL: 'off' });
      await waitFor(running, 'ready at https://id.example.org');
      expect(running.output()).not.toContain('Demo dataset loaded');
      expect(running.output()).toMatch(/"level":40,.*NODE_ENV=production without OAUTH_PRIVATE_KEY\(_FILE\) and OAUTH_ENCRYPTION_KEY\(_FILE\)/);
      const { rows } = await admin.query(`select count(*)::int as n from ${schema}.users`);
      expect(rows[0].n).toBe(0);
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
      await rm(keysDir, { recursive: true, force: true });
    }
  });

  it.runIf(TEST_DATABASE_URL)('runs the same on an empty PostgreSQL database', async () => {
    const schema = `test_start_${Date.now()}`;
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    try {
      const port = await freePort();
      const url = new URL(TEST_DATABASE_URL!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const running = start({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: work.dataDir, DATABASE_URL: url.toString() });
      await waitFor(running, 'Demo dataset loaded');
      expect(running.output()).toContain('(PostgreSQL)');
      const response = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'foodsaver@example.org', password: 'demo-password' }),
      });
      expect(response.status).toBe(200);
      const { rows } = await admin.query(`select count(*)::int as n from ${schema}.users`);
      expect(rows[0].n).toBeGreaterThanOrEqual(5);
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      await admin.query(`drop schema ${schema} cascade`);
      await admin.end();
    }
  });
});
