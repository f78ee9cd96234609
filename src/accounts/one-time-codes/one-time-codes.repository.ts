/** SQL of one-time codes and recovery codes (migration 065); the passkeys table is read, never written, but by a reset. */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';

export interface SecretRow {
  secret: Buffer;
  enabled_at: Date | null;
  last_used_step: number | null;
}

export async function findSecretRow(db: Executor, userId: number): Promise<SecretRow | undefined> {
  return db.selectFrom('one_time_code_secrets').select(['secret', 'enabled_at', 'last_used_step']).where('user_id', '=', userId).executeTakeFirst();
}

/** A new secret awaiting its first code; replaces an earlier pending one, never an enabled one. Whether it was stored. */
export async function storePendingSecret(db: Executor, userId: number, secret: Buffer, now: Date): Promise<boolean> {
  const row = await db.insertInto('one_time_code_secrets').values({ user_id: userId, secret, created_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret, last_used_step: null }).where('one_time_code_secrets.enabled_at', 'is', null))
    .returning('user_id').executeTakeFirst();
  return row !== undefined;
}

/**
 * Records `step` as the last accepted one if it is later than the stored one:
 * of two requests with the same code, one wins (the row's lock orders them).
 * `enabling` also turns the codes on (the enrolment's confirmation), only for
 * the pending secret the code was checked against (sealed, as stored): a new
 * enrolment started meanwhile in another tab replaced it, and its secret,
 * which the member's app may not hold, is not turned on.
 */
export async function claimTimeStep(db: Executor, userId: number, step: number, now: Date, enabling?: { sealedSecret: Buffer }): Promise<boolean> {
  let query = db.updateTable('one_time_code_secrets').set({ last_used_step: step, ...(enabling ? { enabled_at: now } : {}) })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]));
  query = enabling ? query.where('enabled_at', 'is', null).where('secret', '=', enabling.sealedSecret) : query.where('enabled_at', 'is not', null);
  return (await query.returning('user_id').executeTakeFirst()) !== undefined;
}

/**
 * Holds the member's secret, if codes are on, until the transaction ends; whether they are on. Of a
 * replacement of the recovery codes and a turn-off at once, one waits for the other: the turn-off deletes
 * the new codes, or the replacement finds codes off. Two replacements at once wait for each other too.
 */
export async function holdEnabledSecret(db: Executor, userId: number): Promise<boolean> {
  const row = await db.selectFrom('one_time_code_secrets').select('user_id')
    .where('user_id', '=', userId).where('enabled_at', 'is not', null).forNoKeyUpdate().executeTakeFirst();
  return row !== undefined;
}

/**
 * The member's recovery codes, all of them: `digests` and no others. The caller holds the member's secret
 * ({@link holdEnabledSecret}, or {@link claimTimeStep} turning codes on), so that of two replacements at once
 * the second, which waited, deletes what the first stored instead of adding to it.
 */
export async function replaceRecoveryCodes(db: Executor, userId: number, digests: readonly Buffer[]): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db.insertInto('recovery_codes').values(digests.map((code_digest) => ({ user_id: userId, code_digest }))).execute();
}

/** Marks an unused code used; whether there was one. */
export async function useRecoveryCode(db: Executor, userId: number, digest: Buffer, now: Date): Promise<boolean> {
  const row = await db.updateTable('recovery_codes').set({ used_at: now })
    .where('user_id', '=', userId).where('code_digest', '=', digest).where('used_at', 'is', null)
    .returning('user_id').executeTakeFirst();
  return row !== undefined;
}

export async function countUnusedRecoveryCodes(db: Executor, userId: number): Promise<number> {
  const row = await db.selectFrom('recovery_codes').select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the secret (enabled or pending) and the recovery codes; whether codes were enabled. */
export async function deleteOneTimeCodes(db: Executor, userId: number): Promise<boolean> {
  const row = await db.deleteFrom('one_time_code_secrets').where('user_id', '=', userId).returning('enabled_at').executeTakeFirst();
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  return row?.enabled_at != null;
}

export interface SecondFactors {
  /** One-time codes are turned on. */
  readonly totp: boolean;
  /** Passkeys registered (table of migration 058). */
  readonly passkeys: number;
}

const secondFactorsStatement = statement<{ totp: boolean; passkeys: number }>('second_factors_of_user', `
  select exists (select 1 from one_time_code_secrets where user_id = $1 and enabled_at is not null) as totp,
    (select count(*)::integer from passkeys where user_id = $1) as passkeys`);

/** A member has a second factor: one-time codes turned on, or a passkey. */
export function hasSecondFactor(factors: SecondFactors): boolean {
  return factors.totp || factors.passkeys > 0;
}

export async function findSecondFactors(db: Executor, userId: number): Promise<SecondFactors> {
  const [row] = await secondFactorsStatement.rows(db, [userId]);
  return { totp: row!.totp, passkeys: row!.passkeys };
}

/** The passkeys of a member, deleted by an operator's reset of the second factor. */
export async function deletePasskeyRows(db: Executor, userId: number): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
