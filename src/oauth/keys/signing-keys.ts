/**
 * Signing keys in the database, shared by every instance (SPEC §3 "keys are
 * shared", §5.5, §5.6 rotation). The private key is stored as a JWE (`dir` +
 * `A256GCM`) under a key derived from the configured encryption key; the
 * database alone never yields a usable key.
 */
import { createPrivateKey, createPublicKey, type JsonWebKey as NodeJwk, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importPKCS8, type JWK } from 'jose';
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { logSecurityEvent, NO_EVENT_LOG, type EventLog } from '../../ops/security-events.ts';
import { derivedKeys } from './derived-keys.ts';
import type { KeyMaterial } from './key-material.ts';

/**
 * A retired key stays published this long: its last tokens live the longest
 * token lifetime (1 h), plus slack for instances that sign with it until their
 * next key reload (at most a minute) and for clock skew.
 */
export const RETIRED_KEY_OVERLAP_SECONDS = 3600 + 10 * 60;

export interface StoredSigningKey {
  kid: string;
  /** node:crypto key objects, imported once per load (SPEC §8). */
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  activatedAt: Date;
  retiredAt: Date | null;
}

async function sealPrivateJwk(keys: KeyMaterial, kid: string, privateJwk: JWK): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(privateJwk)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid, cty: 'jwk+json' })
    .encrypt(derivedKeys(keys).signingKeyWrap);
}

async function describeKey(privateKey: CryptoKey): Promise<{ kid: string; privateJwk: JWK; publicJwk: JWK }> {
  const privateJwk = await exportJWK(privateKey);
  const { n, e } = privateJwk;
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: n!, e: e! });
  return { kid, privateJwk, publicJwk: { kty: 'RSA', n, e, kid, use: 'sig', alg: 'RS256' } };
}

async function insertKey(db: Executor, keys: KeyMaterial, privateKey: CryptoKey, now: Date): Promise<string> {
  const { kid, privateJwk, publicJwk } = await describeKey(privateKey);
  await db.insertInto('oauth_signing_keys').values({
    kid,
    private_jwe: await sealPrivateJwk(keys, kid, privateJwk),
    public_jwk: JSON.stringify(publicJwk),
    activated_at: now,
  }).onConflict((oc) => oc.column('kid').doNothing()).execute();
  return kid;
}

/** On start: the configured PEM becomes the first key when there is none yet (idempotent across instances). */
export async function bootstrapSigningKey(db: Executor, keys: KeyMaterial, now: Date): Promise<void> {
  const existing = await db.selectFrom('oauth_signing_keys').select('kid').limit(1).executeTakeFirst();
  if (existing) return;
  const privateKey = await importPKCS8(keys.signingKeyPem, 'RS256', { extractable: true });
  await insertKey(db, keys, privateKey, now);
}

/**
 * A new key signs from now on; the previous one stays in the JWKS until every
 * token it signed has expired. Retiring and inserting are one transaction:
 * there is an active key before and after, whatever fails. Returns the new and
 * the retired key ids.
 */
export async function rotateSigningKey(
  db: Executor, keys: KeyMaterial, modulusLength: number, now: Date, log: EventLog = NO_EVENT_LOG,
): Promise<{ kid: string; retired: string[] }> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength, extractable: true });
  const notAfter = new Date(now.getTime() + RETIRED_KEY_OVERLAP_SECONDS * 1000);
  const rotated = await inTransaction(db, async (trx) => {
    const retired = await trx.updateTable('oauth_signing_keys')
      .set({ retired_at: now, not_after: notAfter })
      .where('retired_at', 'is', null).returning('kid').execute();
    const kid = await insertKey(trx, keys, privateKey, now);
    return { kid, retired: retired.map((r) => r.kid) };
  });
  logSecurityEvent(log, { event: 'oauth.key.rotated', ...rotated });
  return rotated;
}

/** Every key that may still sign or verify a live token, newest first. */
export async function loadSigningKeys(db: Executor, keys: KeyMaterial, now: Date): Promise<StoredSigningKey[]> {
  const rows = await db.selectFrom('oauth_signing_keys')
    .select(['kid', 'private_jwe', 'public_jwk', 'activated_at', 'retired_at'])
    .where((eb) => eb.or([eb('not_after', 'is', null), eb('not_after', '>', now)]))
    .orderBy('activated_at', 'desc').orderBy(sql`kid`)
    .execute();
  const wrap = derivedKeys(keys).signingKeyWrap;
  return Promise.all(rows.map(async (row) => {
    const { plaintext } = await compactDecrypt(row.private_jwe, wrap, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
      .catch(() => {
        throw new Error(`signing key ${row.kid} in the database cannot be decrypted: the encryption key (OAUTH_ENCRYPTION_KEY or <DATA_DIR>/keys/encryption.key) is not the one it was stored with`);
      });
    const privateJwk = JSON.parse(new TextDecoder().decode(plaintext)) as NodeJwk;
    const { n, e } = row.public_jwk as JWK;
    return {
      kid: row.kid,
      privateKey: createPrivateKey({ key: privateJwk, format: 'jwk' }),
      publicKey: createPublicKey({ key: { kty: 'RSA', n, e }, format: 'jwk' }),
      publicJwk: row.public_jwk as JWK,
      activatedAt: row.activated_at,
      retiredAt: row.retired_at,
    };
  }));
}

/** Every key still published, newest first, without decrypting anything (the CLI's `keys list`). */
export function listSigningKeyStates(db: Executor, now: Date): Promise<{ kid: string; activatedAt: Date; retiredAt: Date | null; notAfter: Date | null }[]> {
  return db.selectFrom('oauth_signing_keys')
    .select(['kid', 'activated_at as activatedAt', 'retired_at as retiredAt', 'not_after as notAfter'])
    .where((eb) => eb.or([eb('not_after', 'is', null), eb('not_after', '>', now)]))
    .orderBy(sql`retired_at desc nulls first`).orderBy('activated_at', 'desc')
    .execute();
}

/** Keys whose tokens have all expired leave the table. */
export async function purgeRetiredSigningKeys(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('oauth_signing_keys').where('not_after', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
