/**
 * The `passkeys` table (migration 058) and the members' WebAuthn user handles
 * (migration 059). SQL only; the ceremonies are in passkey-registration.ts and
 * passkey-authentication.ts.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

export interface PasskeyRow {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface NewPasskey {
  userId: number;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: readonly string[];
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  name: string;
}

/** The longest name a member may give a passkey, in characters (code points). */
export const MAX_PASSKEY_NAME_LENGTH = 100;

/** A passkey's name as stored: trimmed, cut after {@link MAX_PASSKEY_NAME_LENGTH} code points (never inside a surrogate pair). */
export function storedPasskeyName(name: string): string {
  return Array.from(name.trim()).slice(0, MAX_PASSKEY_NAME_LENGTH).join('');
}

const COLUMNS = ['id', 'user_id', 'credential_id', 'public_key', 'sign_count', 'transports', 'device_type', 'backed_up', 'name', 'created_at', 'last_used_at'] as const;

type Selected = {
  id: number; user_id: number; credential_id: string; public_key: Buffer; sign_count: string | number; transports: string[];
  device_type: string; backed_up: boolean; name: string; created_at: Date; last_used_at: Date | null;
};

function toPasskey(row: Selected): PasskeyRow {
  return {
    id: row.id, userId: row.user_id, credentialId: row.credential_id, publicKey: new Uint8Array(row.public_key),
    signCount: Number(row.sign_count), transports: row.transports, deviceType: row.device_type === 'multiDevice' ? 'multiDevice' : 'singleDevice',
    backedUp: row.backed_up, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at,
  };
}

/** How many passkeys the member has (the `mfa` branch's "has a second factor"). */
export async function countPasskeys(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<string>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Deletes every passkey of the member (an operator's reset of the second factor); how many there were. */
export async function deletePasskeysOfUser(db: Executor, userId: number): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The member's passkeys, oldest first. */
export async function listPasskeys(db: Executor, userId: number): Promise<PasskeyRow[]> {
  const rows = await db.selectFrom('passkeys').select(COLUMNS).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toPasskey);
}

/** A passkey as a sign-in finds it: with whether its owner is disabled (member-status.ts). */
export interface SignInPasskey extends PasskeyRow {
  ownerDisabled: boolean;
}

/** The passkey with this credential id; none of a deleted member, whose passkeys are gone with them (member-deletion.ts). */
export async function findPasskeyByCredentialId(db: Executor, credentialId: string): Promise<SignInPasskey | undefined> {
  const row = await db.selectFrom('passkeys').innerJoin('users', 'users.id', 'passkeys.user_id')
    .select(COLUMNS.map((column) => `passkeys.${column}` as const)).select('users.disabled_at')
    .where('passkeys.credential_id', '=', credentialId).where('users.deleted_at', 'is', null).executeTakeFirst();
  return row && { ...toPasskey(row), ownerDisabled: row.disabled_at !== null };
}

/** Stores a registered passkey; undefined when its credential id is registered already (to anyone). */
export async function insertPasskey(db: Executor, passkey: NewPasskey, now: Date): Promise<number | undefined> {
  const row = await db.insertInto('passkeys').values({
    user_id: passkey.userId, credential_id: passkey.credentialId, public_key: Buffer.from(passkey.publicKey), sign_count: String(passkey.signCount),
    transports: [...passkey.transports], device_type: passkey.deviceType, backed_up: passkey.backedUp, name: passkey.name, created_at: now,
  }).onConflict((oc) => oc.column('credential_id').doNothing()).returning('id').executeTakeFirst();
  return row?.id;
}

/**
 * Records a use: the new signature counter, backup state and time. Only while
 * the stored counter is still below the new one (or both are 0, an
 * authenticator without a counter): a concurrent use of a cloned key that got
 * there first makes this one a regression. `gone`: the passkey was removed
 * since it was looked up (its member removed it, or was deleted) — an unknown
 * credential, not a clone.
 */
export async function recordPasskeyUse(db: Executor, id: number, use: { signCount: number; backedUp: boolean }, now: Date): Promise<'recorded' | 'regressed' | 'gone'> {
  const result = await db.updateTable('passkeys')
    .set({ sign_count: String(use.signCount), backed_up: use.backedUp, last_used_at: now })
    .where('id', '=', id)
    .where(sql<boolean>`(sign_count < ${use.signCount} or (sign_count = 0 and ${use.signCount}::bigint = 0))`)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) return 'recorded';
  // The update waited for a removal that held the row, then found it gone: this read, a later statement, sees it gone too.
  return (await db.selectFrom('passkeys').select('id').where('id', '=', id).executeTakeFirst()) ? 'regressed' : 'gone';
}

/** Renames one of the member's passkeys; whether it was theirs. */
export async function renamePasskey(db: Executor, userId: number, id: number, name: string): Promise<boolean> {
  const result = await db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes one of the member's passkeys; whether it was theirs. */
export async function deletePasskey(db: Executor, userId: number, id: number): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The member's WebAuthn user handle, made on first use (32 random bytes, base64url). */
export async function userHandleOf(db: Executor, userId: number): Promise<string> {
  await db.insertInto('webauthn_user_handles').values({ user_id: userId, handle: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('user_id').doNothing()).execute();
  const row = await db.selectFrom('webauthn_user_handles').select('handle').where('user_id', '=', userId).executeTakeFirstOrThrow();
  return row.handle;
}

/** The member's WebAuthn user handle, or undefined before their first registration. */
export async function findUserHandle(db: Executor, userId: number): Promise<string | undefined> {
  const row = await db.selectFrom('webauthn_user_handles').select('handle').where('user_id', '=', userId).executeTakeFirst();
  return row?.handle;
}
