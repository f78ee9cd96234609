/**
 * README "Running on PostgreSQL" as written: `createdb foodsharing`, then
 * `DATABASE_URL=… npm start`, by bash, only with TEST_DATABASE_URL (the
 * PostgreSQL server to use). The database name `foodsharing` becomes a fresh
 * one of this run (dropped after) and the server in the URL that of
 * TEST_DATABASE_URL; createdb reaches it through PGHOST/PGPORT/PGUSER, and the
 * server listens on a free PORT instead of 8080 and keeps its keys in a
 * DATA_DIR of this test, not in the checkout's ./data. `npm start` builds dist/
 * first when it is stale (a full tsc build: the slow part of this test).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { exampleBlock } from '../helpers/markdown-examples.ts';
import { freePort } from '../helpers/oauth.ts';
import { useShell } from './shell.ts';

const shell = useShell();
const name = `docs_${randomBytes(6).toString('hex')}`;
const DOCUMENTED_SERVER = 'postgres://postgres@127.0.0.1:5432';

afterAll(async () => {
  if (TEST_DATABASE_URL === undefined) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
});

describe('README: running on PostgreSQL', () => {
  const block = exampleBlock('README.md', 'createdb foodsharing\n');

  test.skipIf(TEST_DATABASE_URL === undefined)('createdb and npm start: the server migrates the new database, loads the demo and answers', async () => {
    const server = new URL(TEST_DATABASE_URL!);
    const script = block.text.replace('createdb foodsharing\n', `createdb ${name}\n`)
      .replace(`${DOCUMENTED_SERVER}/foodsharing`, `${server.protocol}//${server.username}@${server.host}/${name}`);
    expect(script).not.toContain('foodsharing');
    const port = await freePort();
    const running = shell.start(script, {
      PGHOST: server.hostname, PGPORT: server.port || '5432', PGUSER: decodeURIComponent(server.username), PORT: String(port), DATA_DIR: `${shell.cwd}/data`, NODE_ENV: 'development', LOG_LEVEL: 'info', LOG_FORMAT: 'json',
    });
    await running.waitFor(/Food-sharing server ready at http:\/\/localhost:\d+ \(PostgreSQL\)/);
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(200);
    const discovery = await (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).json() as { issuer: string };
    expect(discovery.issuer).toBe(`http://localhost:${port}`);
    const login = await fetch(`http://127.0.0.1:${port}/api/user/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'foodsaver@example.org', password: 'demo-password' }),
    });
    expect(login.status).toBe(200);
    running.stop();
    await running.exited;
  }, 300_000);
});
