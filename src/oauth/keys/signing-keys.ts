/**
 * Signing keys in the database, shared by every instance (SPEC §3 "keys are
 * shared", §5.5, §5.6 rotation). The private key is stored as a JWE (`dir` +
 * `A256GCM`) under a key derived from the configured encryption key; the
 * database alone never yields a usable key.
 */
import { createPrivateKey, createPublicKey, generateKeyPair, type JsonWebKey as NodeJwk, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, CompactEncrypt, compactDecrypt, type JWK } from 'jose';
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { logSecurityEvent, NO_EVENT_LOG, type EventLog } from '../../ops/security-events.ts';
import { algorithmOfKey, SIGNING_ALGS, type SigningAlg } from '../jose/algorithms.ts';
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
  /** The one algorithm this key signs and verifies with (migration 052). */
  alg: SigningAlg;
  /** node:crypto key objects, imported once per load (SPEC §8). */
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
  activatedAt: Date;
  retiredAt: Date | null;
}

/** RFC 7638 §3.2: the members of each key type that make up its thumbprint and its public JWK. */
const PUBLIC_MEMBERS: Record<SigningAlg, readonly string[]> = { RS256: ['kty', 'n', 'e'], ES256: ['kty', 'crv', 'x', 'y'], EdDSA: ['kty', 'crv', 'x'] };

const generate = promisify(generateKeyPair);

/** A fresh private key: RSA of `modulusLength` bits, ECDSA on P-256 (RFC 7518 §3.4), or Ed25519 (RFC 8037). */
async function generateSigningKey(alg: SigningAlg, modulusLength: number): Promise<KeyObject> {
  if (alg === 'RS256') return (await generate('rsa', { modulusLength })).privateKey;
  if (alg === 'ES256') return (await generate('ec', { namedCurve: 'P-256' })).privateKey;
  return (await generate('ed25519')).privateKey;
}

async function sealPrivateJwk(keys: KeyMaterial, kid: string, privateJwk: NodeJwk): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(privateJwk)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid, cty: 'jwk+json' })
    .encrypt(derivedKeys(keys).signingKeyWrap);
}

async function describeKey(alg: SigningAlg, privateKey: KeyObject): Promise<{ kid: string; privateJwk: NodeJwk; publicJwk: JWK }> {
  const privateJwk = privateKey.export({ format: 'jwk' });
  const members = Object.fromEntries(PUBLIC_MEMBERS[alg].map((name) => [name, privateJwk[name]])) as JWK;
  const kid = await calculateJwkThumbprint(members);
  return { kid, privateJwk, publicJwk: { ...members, kid, use: 'sig', alg } };
}

/**
 * Stores a key as the active one of its algorithm. Migration 052's unique index admits one active key per
 * algorithm: when another instance stored one first, this one is dropped. Returns the kid stored.
 */
async function insertKey(db: Executor, keys: KeyMaterial, privateKey: KeyObject, activeFrom: Date): Promise<string> {
  const alg = algorithmOfKey(privateKey);
  if (alg === undefined) throw new Error('a signing key is RSA, EC on P-256 or Ed25519');
  const { kid, privateJwk, publicJwk } = await describeKey(alg, privateKey);
  await db.insertInto('oauth_signing_keys').values({
    kid,
    alg,
    private_jwe: await sealPrivateJwk(keys, kid, privateJwk),
    public_jwk: JSON.stringify(publicJwk),
    activated_at: activeFrom,
  }).onConflict((oc) => oc.doNothing()).execute();
  return kid;
}

/**
 * On start: every algorithm without an active key gets one (idempotent across instances). RS256's first
 * key is the configured PEM; ES256 and EdDSA keys are generated, stored only in the table (encrypted).
 */
export async function bootstrapSigningKey(db: Executor, keys: KeyMaterial, now: Date): Promise<void> {
  const active = await db.selectFrom('oauth_signing_keys').select('alg').where('retired_at', 'is', null).execute();
  const has = new Set(active.map((row) => row.alg));
  for (const alg of SIGNING_ALGS) {
    if (has.has(alg)) continue;
    const privateKey = alg === 'RS256' ? createPrivateKey(keys.signingKeyPem) : await generateSigningKey(alg, 0);
    await insertKey(db, keys, privateKey, now);
  }
}

export interface Rotation {
  /** The new key of each algorithm. */
  activated: Record<SigningAlg, string>;
  /** The keys that stop signing when the new ones start; published until their tokens have expired. */
  retired: string[];
  /** When the new keys start signing (and the old ones stop): published from now, signing from then. */
  activeFrom: Date;
}

/**
 * A new key of every algorithm, published at once and signing `publishLeadSeconds` later; the
 * previous ones sign until then and stay in the JWKS until every token they signed has expired.
 * The lead lets every instance, and every cache of the JWKS, list a key before any token names it
 * (key-store.ts `KEY_PUBLISH_LEAD_SECONDS`); it is counted from the clock read once the keys are
 * generated and the current ones locked, moments before the commit that publishes the new ones, so
 * that neither a slow key generation nor a wait for a lock eats it. Retiring and inserting are one
 * transaction: there is a signing key of each algorithm before, during and after, whatever fails.
 */
export async function rotateSigningKey(
  db: Executor, keys: KeyMaterial, modulusLength: number, clock: () => Date, log: EventLog = NO_EVENT_LOG, publishLeadSeconds = 0,
): Promise<Rotation> {
  const fresh = await Promise.all(SIGNING_ALGS.map((alg) => generateSigningKey(alg, modulusLength)));
  const rotated = await inTransaction(db, async (trx) => {
    await trx.selectFrom('oauth_signing_keys').select('kid').where('retired_at', 'is', null).forUpdate().execute();
    const activeFrom = new Date(clock().getTime() + publishLeadSeconds * 1000);
    const notAfter = new Date(activeFrom.getTime() + RETIRED_KEY_OVERLAP_SECONDS * 1000);
    const retired = await trx.updateTable('oauth_signing_keys')
      .set({ retired_at: activeFrom, not_after: notAfter })
      .where('retired_at', 'is', null).returning('kid').execute();
    const kids: string[] = [];
    for (const privateKey of fresh) kids.push(await insertKey(trx, keys, privateKey, activeFrom));
    const activated = Object.fromEntries(SIGNING_ALGS.map((alg, i) => [alg, kids[i]!])) as Record<SigningAlg, string>;
    return { activated, retired: retired.map((r) => r.kid), activeFrom };
  });
  logSecurityEvent(log, { event: 'oauth.key.rotated', kids: Object.values(rotated.activated), retired: rotated.retired, activeFrom: rotated.activeFrom.toISOString() });
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
    const privateKey = createPrivateKey({ key: JSON.parse(new TextDecoder().decode(plaintext)) as NodeJwk, format: 'jwk' });
    // The key's own type, not a column, decides its algorithm: what signs is what verifies.
    const alg = algorithmOfKey(privateKey);
    if (alg === undefined) throw new Error(`signing key ${row.kid} in the database is of no supported type`);
    return {
      kid: row.kid, alg, privateKey, publicKey: createPublicKey(privateKey), publicJwk: row.public_jwk as JWK,
      activatedAt: row.activated_at, retiredAt: row.retired_at,
    };
  }));
}

/** Every key still published, newest first, without decrypting anything (the CLI's `keys list`). */
export function listSigningKeyStates(db: Executor, now: Date): Promise<{ kid: string; alg: string; activatedAt: Date; retiredAt: Date | null; notAfter: Date | null }[]> {
  return db.selectFrom('oauth_signing_keys')
    .select(['kid', 'alg', 'activated_at as activatedAt', 'retired_at as retiredAt', 'not_after as notAfter'])
    .where((eb) => eb.or([eb('not_after', 'is', null), eb('not_after', '>', now)]))
    .orderBy(sql`retired_at desc nulls first`).orderBy('activated_at', 'desc')
    .orderBy(sql`array_position(${sql.val([...SIGNING_ALGS])}::text[], alg)`)
    .execute();
}

/** Keys whose tokens have all expired leave the table. */
export async function purgeRetiredSigningKeys(db: Executor, now: Date): Promise<number> {
  const result = await db.deleteFrom('oauth_signing_keys').where('not_after', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
