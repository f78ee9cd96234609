/**
 * What the organisation (the admin screen's member pages) and operators (the
 * CLI) do to a member's account (docs/security.md, "Disabling and deleting a
 * member"): end every session, disable the account (no sign-in until it is
 * enabled again) and enable it.
 */
import type { Executor } from '../db/executor.ts';
import { inTransaction } from '../db/transaction.ts';
import { dropPendingLogins } from './one-time-codes/pending-logins.ts';
import { endSessionsOfUser } from './sessions.ts';

export interface SignedOut {
  readonly sessionsEnded: number;
  readonly grantsRevoked: number;
}

/**
 * Signs a member out everywhere, in the caller's transaction: every session
 * ends as a logout ends one (the apps it signed into get back-channel logout
 * notices, queued by migration 044's trigger), every grant is revoked with
 * its refresh and access tokens, codes not yet exchanged, one-time links
 * (unlock, password reset) and logins waiting for their second factor are
 * deleted.
 */
export async function signOutEverywhere(trx: Executor, userId: number, now: Date): Promise<SignedOut> {
  // Sessions first: their codes die with them, and the grant of an exchange that held a session's row is committed before the grants are revoked.
  const ended = await endSessionsOfUser(trx, userId, now);
  const revoked = await trx.updateTable('oauth_grants').set({ revoked_at: now })
    .where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  await trx.deleteFrom('oauth_codes').where('user_id', '=', userId).where('used_at', 'is', null).execute();
  await trx.deleteFrom('login_unlock_tokens').where('user_id', '=', userId).execute();
  await trx.deleteFrom('password_reset_tokens').where('user_id', '=', userId).execute();
  // A right password waiting for its second factor would start a session after the member was disabled.
  await dropPendingLogins(trx, userId);
  return { sessionsEnded: ended.sessionsEnded, grantsRevoked: ended.grantsRevoked + Number(revoked.numUpdatedRows) };
}

/**
 * Ends every session of the member and revokes every grant (the admin screen's sign-out). The member's row
 * first, as a disable, a deletion, a password change and a sign-in take it: a second step completing at the
 * same moment (the member's row, its pending login, then the session it renews) waits for it instead of
 * holding the pending login this transaction deletes last while waiting for the session it deleted first.
 */
export function endMemberSessions(db: Executor, userId: number, now: Date): Promise<SignedOut> {
  return inTransaction(db, async (trx) => {
    await lockLiveMember(trx, userId);
    return signOutEverywhere(trx, userId, now);
  });
}

/** The change was made (`changed`), or the member was already in that state; undefined for no such (or a deleted) member. */
export type StatusChange = SignedOut & { readonly changed: boolean };

/**
 * Disables the member and signs them out everywhere in one transaction: login
 * refuses them (login.service.ts), a session that slipped in is not found
 * (sessions.ts `findSession`), and no unlock or reset mail is sent to them.
 */
export async function disableMember(db: Executor, userId: number, now: Date): Promise<StatusChange | undefined> {
  return inTransaction(db, async (trx) => {
    const member = await lockLiveMember(trx, userId);
    if (!member) return undefined;
    if (member.disabled_at !== null) return { changed: false, sessionsEnded: 0, grantsRevoked: 0 };
    await trx.updateTable('users').set({ disabled_at: now }).where('id', '=', userId).execute();
    return { changed: true, ...(await signOutEverywhere(trx, userId, now)) };
  });
}

/** Lets a disabled member sign in again; what disabling revoked stays revoked. */
export async function enableMember(db: Executor, userId: number): Promise<StatusChange | undefined> {
  return inTransaction(db, async (trx) => {
    const member = await lockLiveMember(trx, userId);
    if (!member) return undefined;
    if (member.disabled_at === null) return { changed: false, sessionsEnded: 0, grantsRevoked: 0 };
    await trx.updateTable('users').set({ disabled_at: null }).where('id', '=', userId).execute();
    return { changed: true, sessionsEnded: 0, grantsRevoked: 0 };
  });
}

/**
 * The member's row, locked until the transaction ends; undefined when there is none or it was deleted. Not
 * `for update`: that lock also waits for, and is waited for by, the key-share lock every foreign key to the
 * member takes (a code's, a grant's), while a statement issuing one holds the member's session, which this
 * transaction then deletes: the two deadlocked, and one of them failed. `for no key update` serialises the
 * status changes, password changes and sign-ins (sessions.ts `holdMemberForSignIn`) as well.
 */
export function lockLiveMember(trx: Executor, userId: number) {
  return trx.selectFrom('users').select(['id', 'email', 'role', 'disabled_at'])
    .where('id', '=', userId).where('deleted_at', 'is', null).forNoKeyUpdate().executeTakeFirst();
}

/**
 * Whether `actor` (an organisation member on the admin screen) may end the
 * sessions of, disable, enable or delete `member`: never themselves, and only
 * a member of a lower role — another organisation member is changed by an
 * operator (`user disable` and the others on the command line). One stolen
 * organisation account cannot lock the others out.
 */
export function mayManageMember(actor: { id: number; role: number }, member: { id: number; role: number }): boolean {
  return actor.id !== member.id && member.role < actor.role;
}
