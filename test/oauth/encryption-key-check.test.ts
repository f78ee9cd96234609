import { sql } from 'kysely';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { checkEncryptionKey, EncryptionKeyMismatchError, encryptionKeyFingerprint } from '../../src/oauth/keys/key-check.ts';
import type { KeyMaterial } from '../../src/oauth/keys/key-material.ts';
import { bootstrapSigningKey } from '../../src/oauth/keys/signing-keys.ts';
import { testConfig, testKeys } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

// Two instances of one deployment with different encryption keys both reported ready and then failed
// requests (500 on the JWKS, 401 for a valid client secret). The check main.ts runs before listening.
const KEY_A = Buffer.alloc(32, 7).toString('base64'); // testKeys()'s encryption key
const KEY_B = Buffer.alloc(32, 9).toString('base64');

let database: TestDatabase;
let keysA: KeyMaterial;
let keysB: KeyMaterial;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  const fresh = database = await createTestDatabase();
  keysA = await testKeys();
  keysB = { ...keysA, encryptionKey: Buffer.from(KEY_B, 'base64') };
  cleanups.push(() => fresh.drop());
});
afterAll(async () => { for (const cleanup of cleanups) await cleanup(); });

async function configWith(env: Record<string, string>) {
  const setup = await testConfig(env);
  cleanups.push(setup.removeDataDir);
  return setup.config;
}

async function storedFingerprints(): Promise<Buffer[]> {
  const { rows } = await sql<{ fingerprint: Uint8Array }>`select fingerprint from encryption_key_check`.execute(database.handle.db);
  return rows.map((row) => Buffer.from(row.fingerprint));
}

describe('the encryption key checked at start', () => {
  it('the first start stores a fingerprint (not the key); the same key starts again', async () => {
    const config = await configWith({ OAUTH_ENCRYPTION_KEY: KEY_A });
    await checkEncryptionKey(database.handle.db, config, keysA);
    await checkEncryptionKey(database.handle.db, config, keysA);
    const stored = await storedFingerprints();
    expect(stored).toEqual([encryptionKeyFingerprint(keysA)]);
    expect(stored[0]!.equals(Buffer.from(keysA.encryptionKey))).toBe(false);
  });

  it('another key is refused with one line naming OAUTH_ENCRYPTION_KEY, OAUTH_ENCRYPTION_KEY_FILE or the generated file', async () => {
    await checkEncryptionKey(database.handle.db, await configWith({ OAUTH_ENCRYPTION_KEY: KEY_A }), keysA);
    const cases: [Record<string, string>, RegExp][] = [
      [{ OAUTH_ENCRYPTION_KEY: KEY_B }, /^OAUTH_ENCRYPTION_KEY is not the encryption key this database was set up with/],
      [{ OAUTH_ENCRYPTION_KEY_FILE: '/run/secrets/enc.key' }, /^OAUTH_ENCRYPTION_KEY_FILE=\/run\/secrets\/enc\.key is not the encryption key/],
      [{}, /^The key generated in \/.+\/keys\/encryption\.key \(no OAUTH_ENCRYPTION_KEY or OAUTH_ENCRYPTION_KEY_FILE set\) is not/],
    ];
    for (const [env, message] of cases) {
      const error = await checkEncryptionKey(database.handle.db, await configWith(env), keysB).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EncryptionKeyMismatchError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).not.toContain(KEY_B);
    }
    expect(await storedFingerprints()).toEqual([encryptionKeyFingerprint(keysA)]);
  });

  it('a database from before the fingerprint: a key that cannot decrypt the active signing key is refused and stores nothing', async () => {
    await bootstrapSigningKey(database.handle.db, keysA, new Date());
    const config = await configWith({ OAUTH_ENCRYPTION_KEY: KEY_B });
    await expect(checkEncryptionKey(database.handle.db, config, keysB)).rejects.toThrow(/^OAUTH_ENCRYPTION_KEY is not the encryption key/);
    expect(await storedFingerprints()).toEqual([]);
    await checkEncryptionKey(database.handle.db, await configWith({ OAUTH_ENCRYPTION_KEY: KEY_A }), keysA);
    expect(await storedFingerprints()).toEqual([encryptionKeyFingerprint(keysA)]);
  });

  it('two instances starting at once with different keys on an empty database: exactly one starts', async () => {
    const results = await Promise.allSettled([
      checkEncryptionKey(database.handle.db, await configWith({ OAUTH_ENCRYPTION_KEY: KEY_A }), keysA),
      checkEncryptionKey(database.handle.db, await configWith({ OAUTH_ENCRYPTION_KEY: KEY_B }), keysB),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason))
      .toEqual([expect.any(EncryptionKeyMismatchError)]);
  });
});
