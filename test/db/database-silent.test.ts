import { performance } from 'node:perf_hooks';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.ts';
import { DATABASE_UNAVAILABLE } from '../../src/db/unavailable.ts';
import { testConfig, testKeys } from '../helpers/app.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../helpers/database.ts';
import { startSilentProxy, type SilentProxy } from '../helpers/silent-proxy.ts';

// A database that stops answering with its connections open (packets dropped): requests on pooled
// connections must not hang, and the service must come back by itself. Needs a real PostgreSQL server.
const TIMEOUT_MS = 1_000;
/** Far above what the timeouts allow (about 2 s), far below a hang. */
const ANSWER_BOUND_MS = 8_000;
const RECOVERY_DEADLINE_MS = 20_000;

let database: TestDatabase;
let proxy: SilentProxy;
let handle: DatabaseHandle;
let app: FastifyInstance;
let setup: Awaited<ReturnType<typeof testConfig>>;

const needsDatabase: InjectOptions[] = [
  { url: '/api/user/current', headers: { cookie: `fs_session=${'a'.repeat(43)}` } },
  { url: '/api/user/current', headers: { cookie: `fs_session=${'b'.repeat(43)}` } },
  { method: 'POST', url: '/oauth/token', payload: 'grant_type=authorization_code&code=x&client_id=nobody',
    headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  { method: 'POST', url: '/login', payload: 'email=a%40b.de&password=x&csrf_token=t',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'CSRF_TOKEN=t' } },
  { url: '/ready' },
];

async function untilReady(deadlineMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const status = (await app.inject({ url: '/ready' })).statusCode;
    if (status === 200 || performance.now() - started > deadlineMs) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!TEST_DATABASE_URL)('a database that goes silent with its connections open (PostgreSQL only: skipped without TEST_DATABASE_URL)', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(TEST_DATABASE_URL!);
    proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    handle = await openDatabase({ kind: 'postgres', url: target.toString(), schema: database.schema, poolSize: 3, timeoutMs: TIMEOUT_MS });
    setup = await testConfig();
    app = await buildApp(setup.config, { database: handle, keys: await testKeys() });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await proxy?.close();
    await database?.drop();
    await setup?.removeDataDir();
  });

  it('answers 503 within seconds on pooled connections, /ready 503, then recovers by itself when it answers again', async () => {
    // Pooled connections through the proxy, all answering.
    const before = await Promise.all(needsDatabase.map((request) => app.inject(request)));
    expect(before.map((r) => r.statusCode)).toEqual([401, 401, 401, 401, 200]);

    proxy.silence();
    const started = performance.now();
    const during = await Promise.all(needsDatabase.map(async (request) => {
      const response = await app.inject(request);
      return { status: response.statusCode, ms: performance.now() - started, body: response.body };
    }));
    expect(during.map((r) => r.status)).toEqual([503, 503, 503, 503, 503]);
    expect(Math.max(...during.map((r) => r.ms))).toBeLessThan(ANSWER_BOUND_MS);
    expect(during.map((r) => r.body).join('')).not.toMatch(/timeout|no answer|127\.0\.0\.1/i);
    expect(proxy.droppedBytes).toBeGreaterThan(0); // the queries were sent into the silence, not refused

    proxy.resume();
    expect(await untilReady(RECOVERY_DEADLINE_MS)).toBe(200);
    const after = await Promise.all(needsDatabase.map((request) => app.inject(request)));
    expect(after.map((r) => r.statusCode)).toEqual([401, 401, 401, 401, 200]);
  });

  it('a statement the server cancels (statement_timeout) is unavailable too, and its connection stays usable', async () => {
    const slow = await sql`select pg_sleep(${TIMEOUT_MS * 3 / 1000})`.execute(handle.db).catch((e: unknown) => e);
    expect(slow).toMatchObject({ code: DATABASE_UNAVAILABLE, cause: { code: '57014' } });
    expect((await sql<{ one: number }>`select 1 as one`.execute(handle.db)).rows).toEqual([{ one: 1 }]);
  });
});
