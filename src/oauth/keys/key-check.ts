/**
 * Start-up check that this instance holds the deployment's encryption key
 * (SPEC §3: instances share keys by configuration). An instance with another
 * key would report ready and then fail: stored signing keys would not decrypt
 * (500 on the JWKS) and client-secret digests would not match (401 for a valid
 * secret). So before listening it decrypts the active signing key and compares
 * a stored fingerprint of the key, and refuses to start with one line naming
 * the variable.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import path from 'node:path';
import { compactDecrypt } from 'jose';
import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { derivedKeys } from './derived-keys.ts';
import { ENCRYPTION_KEY_FILE, type KeyMaterial } from './key-material.ts';

const FINGERPRINT_LABEL = 'foodsharing encryption key check v1';

/** The start was refused: this instance's encryption key is not the deployment's. */
export class EncryptionKeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionKeyMismatchError';
  }
}

/** HMAC-SHA256 of a fixed label under a key derived for this purpose alone: reveals nothing of the key. */
export function encryptionKeyFingerprint(keys: Pick<KeyMaterial, 'encryptionKey'>): Buffer {
  const checkKey = Buffer.from(hkdfSync('sha256', keys.encryptionKey, new Uint8Array(0), 'foodsharing-oauth:key-check', 32));
  return createHmac('sha256', checkKey).update(FINGERPRINT_LABEL).digest();
}

/** Whether `keys` are the encryption key whose fingerprint is `stored` (compared in constant time). */
export function matchesFingerprint(keys: Pick<KeyMaterial, 'encryptionKey'>, stored: Uint8Array | undefined): boolean {
  const fingerprint = encryptionKeyFingerprint(keys);
  return stored?.length === fingerprint.length && timingSafeEqual(stored, fingerprint);
}

/**
 * Throws {@link EncryptionKeyMismatchError} when `keys` cannot decrypt the active signing key or do not
 * match the stored fingerprint; the first instance of a deployment stores the fingerprint. Database
 * errors propagate as they are (a start against a database that is down fails as before).
 */
export async function checkEncryptionKey(db: DB, config: Config, keys: KeyMaterial): Promise<void> {
  const refusal = () => new EncryptionKeyMismatchError(`${keySource(config)} is not the encryption key this database was `
    + 'set up with: every instance of a deployment must use the same key (stored signing keys, refresh tokens and client '
    + 'secrets depend on it); refusing to start');
  // The signing key first: a deployment from before the fingerprint is checked too, and a wrong key never stores one.
  if (!await decryptsActiveSigningKey(db, keys)) throw refusal();
  await sql`insert into encryption_key_check (fingerprint) values (${encryptionKeyFingerprint(keys)}) on conflict do nothing`.execute(db);
  const { rows } = await sql<{ fingerprint: Uint8Array }>`select fingerprint from encryption_key_check`.execute(db);
  if (!matchesFingerprint(keys, rows[0]?.fingerprint)) throw refusal();
}

/** True when there is no signing key yet, or the newest active one decrypts under `keys`. */
async function decryptsActiveSigningKey(db: DB, keys: KeyMaterial): Promise<boolean> {
  const active = await db.selectFrom('oauth_signing_keys').select('private_jwe')
    .where('retired_at', 'is', null).orderBy('activated_at', 'desc').limit(1).executeTakeFirst();
  if (active === undefined) return true;
  try {
    await compactDecrypt(active.private_jwe, derivedKeys(keys).signingKeyWrap,
      { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
    return true;
  } catch {
    return false;
  }
}

/** Where this instance's key came from, as the operator set it. */
function keySource(config: Config): string {
  if (config.oauthEncryptionKey !== undefined) return 'OAUTH_ENCRYPTION_KEY';
  if (config.oauthEncryptionKeyFile !== undefined) return `OAUTH_ENCRYPTION_KEY_FILE=${config.oauthEncryptionKeyFile}`;
  const generated = path.join(config.dataDir, 'keys', ENCRYPTION_KEY_FILE);
  return `The key generated in ${generated} (no OAUTH_ENCRYPTION_KEY or OAUTH_ENCRYPTION_KEY_FILE set)`;
}
