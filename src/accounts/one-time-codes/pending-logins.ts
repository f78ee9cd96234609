/**
 * The second step of a login (OWASP Multifactor Authentication Cheat Sheet:
 * no session before every factor): a correct password leaves only this row —
 * who, "stay logged in", where to go — for five minutes. The browser holds
 * the random id in a cookie; the row keeps its SHA-256 digest. Completing
 * the step takes the row (one statement), so it is used once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { inTransaction } from '../../db/transaction.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';
import { holdMemberForSignIn, type SignInRefused } from '../sessions.ts';

export const PENDING_LOGIN_SECONDS = 5 * 60;

export interface PendingLogin {
  readonly userId: number;
  readonly account: string;
  readonly remember: boolean;
  readonly returnTo: string;
}

function digest(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

function isPendingId(id: string | undefined): id is string {
  return id !== undefined && /^[A-Za-z0-9_-]{43}$/.test(id);
}

/**
 * Holds the login for its second step; the id for the cookie (expired rows: the scheduled purge). Held
 * only while `passwordHash` (the hash the password was verified against) is still the member's and the
 * member is not disabled, with the member's row held as a session's beginning holds it (sessions.ts
 * `holdMemberForSignIn`): else why not, and nothing was held.
 */
export async function holdPendingLogin(db: Executor, clock: Clock, login: PendingLogin, passwordHash: string): Promise<string | SignInRefused> {
  const now = clock();
  const id = randomBytes(32).toString('base64url');
  return inTransaction(db, async (trx) => {
    const refused = await holdMemberForSignIn(trx, login.userId, passwordHash);
    if (refused) return refused;
    await trx.insertInto('pending_logins').values({
      id_digest: digest(id), user_id: login.userId, account: login.account, remember: login.remember, return_to: login.returnTo,
      expires_at: new Date(now.getTime() + PENDING_LOGIN_SECONDS * 1000),
    }).execute();
    return id;
  });
}

/** Ends the member's second steps not yet completed (the password they proved was changed, or the member disabled). */
export async function dropPendingLogins(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('pending_logins').where('user_id', '=', userId).execute();
}

export async function findPendingLogin(db: Executor, clock: Clock, id: string | undefined): Promise<PendingLogin | undefined> {
  if (!isPendingId(id)) return undefined;
  const row = await db.selectFrom('pending_logins').select(['user_id', 'account', 'remember', 'return_to'])
    .where('id_digest', '=', digest(id)).where('expires_at', '>', clock()).executeTakeFirst();
  return row && { userId: row.user_id, account: row.account, remember: row.remember, returnTo: row.return_to };
}

/** Takes the pending login (it is gone afterwards); undefined when another request took it first or it expired. */
export async function takePendingLogin(db: Executor, clock: Clock, id: string | undefined): Promise<PendingLogin | undefined> {
  if (!isPendingId(id)) return undefined;
  const row = await db.deleteFrom('pending_logins').where('id_digest', '=', digest(id)).where('expires_at', '>', clock())
    .returning(['user_id', 'account', 'remember', 'return_to']).executeTakeFirst();
  return row && { userId: row.user_id, account: row.account, remember: row.remember, returnTo: row.return_to };
}

/** Taking the pending login `id` as a session's `claim` (sessions.ts `beginSession`): false when it is gone. */
export function pendingLoginClaim(clock: Clock, id: string | undefined): (trx: Executor) => Promise<boolean> {
  return async (trx) => (await takePendingLogin(trx, clock, id)) !== undefined;
}

/** The scheduled purge's part: second steps never completed, past expiry. */
export function purgeExpiredPendingLogins(db: Executor, clock: Clock): Promise<number> {
  return deleteInBatches(db, 'pending_logins', sql<boolean>`expires_at <= ${clock()}`);
}
