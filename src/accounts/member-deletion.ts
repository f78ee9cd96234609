/**
 * Deleting a member (docs/security.md, "Deleting a member"), table by table:
 * what was theirs alone is deleted; what they wrote for the community stays,
 * its author now an anonymous stand-in — the `users` row itself, emptied of
 * everything that named or reached the person. Foreign keys stay whole
 * (polls even refuse to lose their author), and nothing else has to learn
 * that a member can vanish.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import { inTransaction } from '../db/transaction.ts';
import { accountCounterKey, accountOf, secondFactorCounter } from './login-throttle.ts';
import { lockLiveMember, signOutEverywhere, type SignedOut } from './member-status.ts';

/** What a deleted member is called wherever their community content shows its author. */
export const DELETED_MEMBER_NAME = { first: 'Gelöschtes', last: 'Mitglied' } as const;

/** An address no mail can reach (RFC 2606 `.invalid`), unique per row as `users_email_key` needs. */
export function deletedMemberEmail(userId: number): string {
  return `deleted-${userId}@deleted.invalid`;
}

export type DeletedMember = SignedOut & {
  /** The address the member had, for the operator's record of what was done. */
  readonly email: string;
};

/** Private data of the member: deleted with the account. Each `[table, column]`. */
const OWNED_ROWS = [
  ['oauth_grants', 'user_id'], // after being revoked; their refresh-token rows go by cascade
  ['oauth_codes', 'user_id'],
  ['oauth_consents', 'user_id'],
  ['oauth_device_codes', 'user_id'], // devices they approved or denied (otherwise kept until they expire)
  ['region_memberships', 'user_id'],
  ['region_ambassadors', 'user_id'],
  ['forum_subscriptions', 'user_id'],
  ['store_team', 'user_id'],
  ['store_pickup_signups', 'user_id'],
  ['basket_requests', 'user_id'],
  ['baskets', 'creator_id'], // with the requests others made for them
  ['quiz_sessions', 'foodsaver_id'],
  ['reports', 'reported_id'], // what others reported about the member
  ['uploads', 'user_id'],
  // Their ways of signing in: the row stays, so no cascade of users (id) deletes them.
  ['passkeys', 'user_id'], // with the names the member gave them
  ['webauthn_user_handles', 'user_id'],
  ['webauthn_challenges', 'user_id'], // a registration begun and not finished
  ['one_time_code_secrets', 'user_id'],
  ['recovery_codes', 'user_id'],
] as const;

/**
 * Deletes the member: signs them out everywhere (back-channel logout notices
 * included), deletes their private data (OWNED_ROWS, their queued and sent
 * mail, their failed-login counters) and anonymises the `users` row, all in
 * one transaction. Store wall posts, polls, the reports they filed and the
 * store log keep pointing at the anonymous row; the audit log keeps its
 * records (their retention bounds them). Undefined when there is no such
 * member, or they were deleted before.
 */
export async function deleteMember(db: Executor, userId: number, now: Date): Promise<DeletedMember | undefined> {
  return inTransaction(db, async (trx) => {
    // First, before any row: the lock every insert naming the member holds shared (migration 074), so that one
    // under way is waited for and one arriving now waits, then finds the member deleted.
    await sql`select hold_member_for_deletion(${userId})`.execute(trx);
    const member = await lockLiveMember(trx, userId);
    if (!member) return undefined;
    // The refresh tokens before their grants (deleted with them below, by cascade), in the order a refresh locks them
    // (its token, then the grant it extends): in the other order a refresh at the same moment and the deletion waited
    // for each other.
    await trx.deleteFrom('oauth_refresh_tokens')
      .where('grant_id', 'in', (eb) => eb.selectFrom('oauth_grants').select('id').where('user_id', '=', userId)).execute();
    const signedOut = await signOutEverywhere(trx, userId, now);
    for (const [table, column] of OWNED_ROWS) {
      await sql`delete from ${sql.table(table)} where ${sql.ref(column)} = ${userId}`.execute(trx);
    }
    const account = accountOf(member.email);
    await trx.deleteFrom('mail_outbox').where((eb) => eb(eb.fn('lower', ['recipient']), '=', account)).execute();
    await trx.deleteFrom('login_throttle').where('key', 'in', [accountCounterKey(account), secondFactorCounter(account).key, `unlock-mail:${account}`, `reset-mail:${account}`]).execute();
    await trx.updateTable('users').set({
      email: deletedMemberEmail(userId),
      // No password hash: no password verifies against it (passwords.ts).
      password_hash: '!',
      first_name: DELETED_MEMBER_NAME.first,
      last_name: DELETED_MEMBER_NAME.last,
      photo: null,
      role: 0,
      verified: false,
      sleeping: false,
      home_region_id: null,
      disabled_at: member.disabled_at ?? now,
      deleted_at: now,
    }).where('id', '=', userId).execute();
    return { email: member.email, ...signedOut };
  });
}
