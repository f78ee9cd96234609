/**
 * The operator commands of README.md ("Command line") and docs/oauth.md
 * ("Registering a client"), run by bash as written (`npm run -s cli -- …`),
 * and their effect seen through the server on the same database.
 *
 * The database: with TEST_DATABASE_URL, a fresh PostgreSQL database of this
 * file, the server running on it the whole time and the CLI beside it, as
 * the README describes several processes. Without it, the embedded database
 * in a data directory of this file; the embedded database admits one process
 * (README: "stop the server first, or use PostgreSQL"), so the commands run
 * while no server does, and the server is opened on the directory afterwards
 * to look. Either way the CLI and the server share DATA_DIR, hence the keys.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DB } from '../../src/db/database.ts';
import { loadKeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { runInProcess } from '../cli/cli-helpers.ts';
import { TEST_DATABASE_URL, withAdminClient } from '../helpers/database.ts';
import { exampleBlock } from '../helpers/markdown-examples.ts';
import { copyMigratedDatabase } from '../helpers/migrated-data-dir.ts';
import { useShell } from './shell.ts';

const shell = useShell();
const PASSWORD = 'Apfelstrudel mit Vanillesoße, bitte!';
const NEW_PASSWORD = 'Rhabarberkuchen vom Blech, noch warm.';
let env: Record<string, string>;
let dropDatabase: (() => Promise<void>) | undefined;
let running: { app: FastifyInstance; db: DB; close(): Promise<void> } | undefined;

async function openServer() {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env });
  const database = await openDatabase(config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: env.DATA_DIR! });
  const app = await buildApp(config, { database, keys: await loadKeyMaterial(config) });
  await app.ready();
  return { app, db: database.db, close: async () => { await app.close(); await database.close(); } };
}

/** The server on the database the commands wrote: the one running (PostgreSQL), or one opened for `work` (embedded). */
async function withServer<T>(work: (app: FastifyInstance, db: DB) => Promise<T>): Promise<T> {
  if (running) return work(running.app, running.db);
  const server = await openServer();
  try {
    return await work(server.app, server.db);
  } finally {
    await server.close();
  }
}

/** A command of the setup around the documented ones (those run through npm, as written), in this process. */
async function cli(argv: string[], input = '') {
  const result = await runInProcess(env.DATA_DIR!, argv, input, env);
  expect(result.code, result.err).toBe(0);
  return result;
}

beforeAll(async () => {
  env = { DATA_DIR: path.join(shell.cwd, 'data') };
  if (TEST_DATABASE_URL !== undefined) {
    const name = `docs_${randomBytes(6).toString('hex')}`;
    await withAdminClient((client) => client.query(`create database ${name}`));
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.href;
    dropDatabase = () => withAdminClient((client) => client.query(`drop database ${name} with (force)`)).then(() => undefined);
  } else {
    // Migrated already (initdb and the migrations are not what the examples show): the commands below start from there.
    await copyMigratedDatabase(env.DATA_DIR!);
  }
  await cli(['demo']);
  if (TEST_DATABASE_URL !== undefined) running = await openServer();
});
afterAll(async () => {
  await running?.close();
  await dropDatabase?.();
});

/** 200 {"active":false} for a right secret, 401 for a wrong one: introspection authenticates the client. */
async function authenticates(app: FastifyInstance, clientId: string, secret: string): Promise<boolean> {
  const response = await app.inject({
    method: 'POST', url: '/oauth/introspect', payload: 'token=nothing',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
  });
  expect([200, 401]).toContain(response.statusCode);
  return response.statusCode === 200;
}

describe('README: passwords from standard input, a user added, given a new password and deleted, a client registered', () => {
  test('every command succeeds in the order written and the server sees the result', async () => {
    const block = exampleBlock('README.md', 'user set-password --email ada@example.org');
    await writeFile(path.join(shell.cwd, 'password.txt'), `${PASSWORD}\n`);
    const result = await shell.run(block.text, { ...env, NEW_PASSWORD });
    expect(result.code, result.err).toBe(0);
    const secret = result.out.trim().split('\n').at(-1)!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    await withServer(async (app, db) => {
      const events = await db.selectFrom('security_events').select(['event', 'user_id']).where('event', 'like', 'account.member.%').orderBy('id').execute();
      expect(events.map((e) => e.event)).toEqual(['account.member.created', 'account.member.password_set', 'account.member.deleted']);
      expect(new Set(events.map((e) => e.user_id)).size).toBe(1);
      expect(await db.selectFrom('users').select('id').where('email', '=', 'ada@example.org').executeTakeFirst()).toBeUndefined();
      expect(await authenticates(app, 'wiki', secret)).toBe(true);
      expect(await authenticates(app, 'wiki', `${secret.slice(0, -1)}x`)).toBe(false);
    });
  });
});

describe('docs/oauth.md: registering a confidential and a public client', () => {
  test('both clients are registered as described; the secret printed once works', async () => {
    const block = exampleBlock('docs/oauth.md', 'npm run cli -- client add --client-id app --name "App"');
    await cli(['client', 'delete', '--client-id', 'wiki']);
    const result = await shell.run(block.text, env);
    expect(result.code, result.err).toBe(0);
    const secret = /Client secret \(shown only now, store it safely\): (\S+)/.exec(result.out)?.[1];
    expect(secret).toBeDefined();
    await withServer(async (app, db) => {
      expect(await authenticates(app, 'wiki', secret!)).toBe(true);
      const clients = await db.selectFrom('oauth_clients').select(['client_id', 'confidential', 'redirect_uris', 'scopes', 'grant_types'])
        .where('client_id', 'in', ['wiki', 'app']).orderBy('client_id').execute();
      expect(clients).toEqual([
        { client_id: 'app', confidential: false, redirect_uris: ['com.example.app:/callback'], scopes: expect.any(Array), grant_types: ['authorization_code'] },
        { client_id: 'wiki', confidential: true, redirect_uris: ['https://wiki.example.org/oauth/callback'], scopes: ['openid', 'profile', 'email'], grant_types: ['authorization_code', 'refresh_token'] },
      ]);
    });
  });
});

describe('docs/oauth.md: the example clients registered with the CLI (device, key, ES256)', () => {
  test('each command registers its client as the examples that use it need', async () => {
    const keygen = exampleBlock('docs/oauth.md', '// keygen.mjs');
    await writeFile(path.join(shell.cwd, 'keygen.mjs'), keygen.text);
    const blocks = [
      exampleBlock('docs/oauth.md', 'npm run cli -- client add --client-id fridge'),
      exampleBlock('docs/oauth.md', '--token-endpoint-auth-method private_key_jwt --jwks-file'),
      exampleBlock('docs/oauth.md', 'npm run cli -- client add --client-id maps'),
    ];
    for (const block of blocks) {
      const result = await shell.run(block.text, env);
      expect(result.code, result.err).toBe(0);
    }
    const jwks = JSON.parse(await readFile(path.join(shell.cwd, 'reports-jwks.json'), 'utf8')) as unknown;
    await withServer(async (_app, db) => {
      const clients = await db.selectFrom('oauth_clients')
        .select(['client_id', 'confidential', 'grant_types', 'scopes', 'token_endpoint_auth_method', 'jwks', 'id_token_signed_response_alg'])
        .where('client_id', 'in', ['fridge', 'reports', 'maps']).orderBy('client_id').execute();
      expect(clients).toEqual([
        { client_id: 'fridge', confidential: false, grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'], scopes: ['openid', 'profile'], token_endpoint_auth_method: 'none', jwks: null, id_token_signed_response_alg: 'RS256' },
        { client_id: 'maps', confidential: false, grant_types: ['authorization_code'], scopes: expect.any(Array), token_endpoint_auth_method: 'none', jwks: null, id_token_signed_response_alg: 'ES256' },
        { client_id: 'reports', confidential: true, grant_types: ['authorization_code'], scopes: expect.any(Array), token_endpoint_auth_method: 'private_key_jwt', jwks, id_token_signed_response_alg: 'RS256' },
      ]);
    });
  });
});
