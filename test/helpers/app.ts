/**
 * buildTestApp(): the real application on a fresh database, with an
 * adjustable clock. Use `app.inject()` or `listen()` for real HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { exportPKCS8, generateKeyPair } from 'jose';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { AttemptCounters } from '../../src/accounts/login-attempt-counters.ts';
import type { ImageWorkQueue } from '../../src/api/uploads/image-work-queue.ts';
import type { DB } from '../../src/db/database.ts';
import type { KeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { createTestDatabase } from './database.ts';
import { TestClock } from './clock.ts';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly db: DB;
  readonly config: Config;
  readonly keys: KeyMaterial;
  readonly clock: TestClock;
  /** Base URL once {@link listen} was called. */
  baseUrl: string;
  listen(): Promise<string>;
  close(): Promise<void>;
}

let sharedKeys: Promise<KeyMaterial> | undefined;

/** One RSA key per test process: generating one per file would only cost time. */
export function testKeys(): Promise<KeyMaterial> {
  sharedKeys ??= (async () => {
    const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    return { signingKeyPem: await exportPKCS8(privateKey), encryptionKey: new Uint8Array(32).fill(7), generatedIn: undefined };
  })();
  return sharedKeys;
}

/**
 * A test configuration whose DATA_DIR is a fresh temporary directory, so that
 * nothing a test generates (keys) lands in the checkout's ./data.
 */
export async function testConfig(env: Record<string, string> = {}): Promise<{ config: Config; removeDataDir(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'fs-test-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, PUBLIC_URL: 'http://localhost:8080', ...env });
  return { config, removeDataDir: () => rm(dataDir, { recursive: true, force: true }) };
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: TestClock;
  /** The app's queue of image work, for tests that hold or watch it. */
  imageWork?: ImageWorkQueue;
  /** Where the app's log lines go (tests read security events from it). */
  logStream?: { write(line: string): void };
  /** The failed-login counters (a Redis store under a test's own key prefix). */
  attempts?: AttemptCounters;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { config, removeDataDir } = await testConfig(options.env);
  const database = await createTestDatabase();
  const keys = await testKeys();
  const clock = options.clock ?? new TestClock();
  const app = await buildApp(config, { database: database.handle, keys, clock: clock.now, ...(options.imageWork ? { imageWork: options.imageWork } : {}), ...(options.attempts ? { attempts: options.attempts } : {}), logStream: options.logStream });
  await app.ready();
  const testApp: TestApp = {
    app,
    db: database.handle.db,
    config,
    keys,
    clock,
    baseUrl: '',
    async listen() {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      testApp.baseUrl = address;
      return address;
    },
    async close() {
      await app.close();
      await database.drop();
      await removeDataDir();
    },
  };
  return testApp;
}
