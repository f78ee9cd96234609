/** Issue 3 item 13: `client add` (secret printed once, --json) and `keys rotate`, through runCli on an embedded database. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { isClientSecretValid } from '../src/oauth/clients/client-secret.ts';
import { loadKeyMaterial } from '../src/oauth/keys/key-material.ts';

let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'fs-cli-oauth-'));
  env = { DATA_DIR: dataDir, NODE_ENV: 'test' };
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: { write: (s: string) => { out += s; } }, err: { write: (s: string) => { err += s; } }, env });
  return { code, out, err };
}

async function withDatabase<T>(work: (db: Awaited<ReturnType<typeof openDatabase>>['db']) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ kind: 'pglite', dataDir });
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

describe('client add', () => {
  test('a confidential client: the secret is printed once and stored only as a digest', async () => {
    const result = await cli('client', 'add', '--client-id', 'wiki', '--name', 'Wiki', '--redirect-uri', 'https://wiki.example/cb',
      '--redirect-uri', 'http://127.0.0.1:8000/cb', '--scope', 'openid', '--scope', 'email', '--grant', 'refresh_token', '--json');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.out);
    expect(json).toMatchObject({ clientId: 'wiki', confidential: true });
    expect(json.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const keys = await loadKeyMaterial(loadConfig(env));
    const row = await withDatabase((db) => db.selectFrom('oauth_clients').selectAll().where('client_id', '=', 'wiki').executeTakeFirstOrThrow());
    expect(row).toMatchObject({ name: 'Wiki', confidential: true, redirect_uris: ['https://wiki.example/cb', 'http://127.0.0.1:8000/cb'], scopes: ['openid', 'email'], grant_types: ['authorization_code', 'refresh_token'] });
    expect(Buffer.from(row.secret_digest!).toString('utf8')).not.toContain(json.secret);
    expect(isClientSecretValid(keys, Buffer.from(row.secret_digest!), json.secret)).toBe(true);
    expect(isClientSecretValid(keys, Buffer.from(row.secret_digest!), `${json.secret}x`)).toBe(false);
  });

  test('text output and a public client', async () => {
    const confidential = await cli('client', 'add', '--client-id', 'chat', '--name', 'Chat', '--redirect-uri', 'https://chat.example/cb');
    expect(confidential.code).toBe(0);
    expect(confidential.out).toMatch(/Client secret \(shown only now, store it safely\): [A-Za-z0-9_-]{43}/);
    const pub = await cli('client', 'add', '--client-id', 'app', '--name', 'App', '--redirect-uri', 'com.example.app:/callback', '--public', '--json');
    expect(pub.code).toBe(0);
    expect(JSON.parse(pub.out)).toEqual({ clientId: 'app', confidential: false, secret: null });
  });

  test('validation errors name the field; missing options are usage errors', async () => {
    const bad = await cli('client', 'add', '--client-id', 'bad id', '--name', 'X', '--redirect-uri', 'http://example.com/cb', '--scope', 'admin', '--json');
    expect(bad.code).toBe(1);
    const fields = JSON.parse(bad.out).errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['clientId', 'redirectUris', 'scopes']));
    const duplicate = await cli('client', 'add', '--client-id', 'wiki', '--name', 'Again', '--redirect-uri', 'https://x.example/cb');
    expect(duplicate.code).toBe(1);
    expect(duplicate.err).toContain('already taken');
    const usage = await cli('client', 'add', '--name', 'X');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('--client-id is required');
  });
});

describe('keys rotate', () => {
  test('a new key becomes active; the old one is retired but still published', async () => {
    const first = await cli('keys', 'rotate', '--json');
    expect(first.code).toBe(0);
    const { kid, retired } = JSON.parse(first.out);
    expect(retired).toHaveLength(1);
    const second = JSON.parse((await cli('keys', 'rotate', '--json')).out);
    expect(second.retired).toEqual([kid]);
    const rows = await withDatabase((db) => db.selectFrom('oauth_signing_keys').select(['kid', 'retired_at', 'not_after', 'private_jwe']).orderBy('activated_at').execute());
    expect(rows).toHaveLength(3);
    expect(rows.filter((r) => r.retired_at === null).map((r) => r.kid)).toEqual([second.kid]);
    for (const r of rows) expect(r.private_jwe.split('.')).toHaveLength(5);
    const text = await cli('keys', 'rotate');
    expect(text.out).toMatch(/New signing key \S+ is active/);
  });
});

describe('the encryption key', () => {
  test('a command that writes secrets or keys refuses another key than the deployment\'s, and writes nothing', async () => {
    const first = await cli('client', 'add', '--client-id', 'key-check-a', '--name', 'A', '--redirect-uri', 'https://a.example/cb', '--json');
    expect(first.code).toBe(0);
    const signingKeys = () => withDatabase(async (db) => (await db.selectFrom('oauth_signing_keys').select('kid').execute()).length);
    const keysBefore = await signingKeys();
    const other = { ...env, OAUTH_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') };
    for (const argv of [['client', 'add', '--client-id', 'key-check-b', '--name', 'B', '--redirect-uri', 'https://b.example/cb'], ['keys', 'rotate']]) {
      let err = '';
      const code = await runCli(argv, { out: { write: () => {} }, err: { write: (s: string) => { err += s; } }, env: other });
      expect(code).toBe(1);
      expect(err).toMatch(/^error: OAUTH_ENCRYPTION_KEY is not the encryption key this database was set up with/);
    }
    await withDatabase(async (db) => {
      expect(await db.selectFrom('oauth_clients').select('client_id').where('client_id', '=', 'key-check-b').execute()).toEqual([]);
    });
    expect(await signingKeys()).toBe(keysBefore);
  });
});
