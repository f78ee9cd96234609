/**
 * A database once started outside production holds the demo
 * accounts and client; in production the server refuses to start while any
 * published demo credential works, starts with ALLOW_DEMO_IN_PRODUCTION=true
 * (saying so at error level), and after `demo remove` starts and refuses the
 * demo login. Production needs PostgreSQL: only with TEST_DATABASE_URL (the
 * decision itself is tested on PGlite in test/demo/demo-credentials.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DEMO_PASSWORD, DEMO_USER_EMAILS, loadDemoData } from '../../src/demo/demo-data.ts';
import { runBin } from '../cli/cli-helpers.ts';
import { testKeys } from '../helpers/app.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { freePort } from '../helpers/oauth.ts';
import { start, START_TEST_TIMEOUT_MS, useStartDataDir, waitFor, type Running } from './start-process.ts';

const work = useStartDataDir();
const schema = `test_demo_prod_${Date.now()}`;
let admin: DatabaseHandle | undefined;
let env: Record<string, string>;
let keysDir: string;

describe.runIf(TEST_DATABASE_URL)('npm start in production on a database with the demo dataset', { timeout: START_TEST_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    admin = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, poolSize: 1 });
    await sql.raw(`create schema ${schema}`).execute(admin.db);
    const loader = await openDatabase({ kind: 'postgres', url: TEST_DATABASE_URL!, schema, poolSize: 2 });
    // Production refuses a placeholder encryption key (testKeys() has one byte repeated): a random one.
    const keys = { ...(await testKeys()), encryptionKey: new Uint8Array(randomBytes(32)) };
    try {
      await migrate(loader.db);
      await loadDemoData(loader.db, keys); // as a development start left it, under the deployment's keys
    } finally {
      await loader.close();
    }
    keysDir = await mkdtemp(path.join(tmpdir(), 'fs-demo-prod-'));
    await writeFile(path.join(keysDir, 'signing.pem'), keys.signingKeyPem, { mode: 0o600 });
    const url = new URL(TEST_DATABASE_URL!);
    url.searchParams.set('options', `-c search_path=${schema}`);
    env = { NODE_ENV: 'production', PUBLIC_URL: 'https://id.example.org', HOST: '127.0.0.1', DATABASE_URL: url.toString(),
      OAUTH_PRIVATE_KEY_FILE: path.join(keysDir, 'signing.pem'), OAUTH_ENCRYPTION_KEY: Buffer.from(keys.encryptionKey).toString('base64'), MAIL: 'off' };
  }, START_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await sql.raw(`drop schema if exists ${schema} cascade`).execute(admin!.db);
    await admin?.close();
    if (keysDir) await rm(keysDir, { recursive: true, force: true });
  });

  const startOnFreePort = async (extra: Record<string, string> = {}): Promise<{ running: Running; port: number }> => {
    const port = await freePort();
    return { running: start({ ...env, DATA_DIR: work.dataDir, PORT: String(port), ...extra }), port };
  };
  const logIn = (port: number, email: string) => fetch(`http://127.0.0.1:${port}/api/user/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });

  it('refuses to start, naming the accounts, the client, demo remove and ALLOW_DEMO_IN_PRODUCTION; with it set, starts and says so at error level', async () => {
    const refused = (await startOnFreePort()).running;
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('Failed to start: NODE_ENV=production, but published demo credentials still work on this database:\n');
    for (const email of DEMO_USER_EMAILS) expect(refused.output()).toContain(`  - account ${email} still has the demo password\n`);
    expect(refused.output()).toContain('  - OAuth client demo-app still has the demo secret\n');
    expect(refused.output()).toContain('`npm run cli -- demo remove`');
    expect(refused.output()).toContain('set ALLOW_DEMO_IN_PRODUCTION=true');

    const { running, port } = await startOnFreePort({ ALLOW_DEMO_IN_PRODUCTION: 'true' });
    await waitFor(running, 'ready at https://id.example.org');
    expect(running.output()).toMatch(/"level":50,.*"msg":"ALLOW_DEMO_IN_PRODUCTION=true: this production server accepts published demo credentials/);
    expect((await logIn(port, 'orga@example.org')).status).toBe(200);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('after demo remove: starts without the setting, and the demo login is refused', async () => {
    const removal = await runBin(work.dataDir, ['demo', 'remove'], { env });
    expect(removal.code, removal.err).toBe(0);
    expect(removal.out).toContain('Removed the demo accounts and OAuth clients');
    const { running, port } = await startOnFreePort();
    await waitFor(running, 'ready at https://id.example.org');
    expect((await logIn(port, 'orga@example.org')).status).toBe(401);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });
});
