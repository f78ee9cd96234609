/** SQL for forum subscriptions (email about every new thread of a region's forum). */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { lockOfSql } from '../../db/transaction.ts';
import { isMemberSql } from '../../accounts/region-access.ts';
import { inLiveSessionWithCsrf, SESSION_CHECK, type CheckedSessionParams, type SessionCheck } from '../../accounts/sessions.ts';
import { deleteInBatches } from '../../ops/maintenance.ts';

export async function isSubscribed(db: Executor, userId: number, regionId: number): Promise<boolean> {
  const row = await db.selectFrom('forum_subscriptions').select('user_id')
    .where('user_id', '=', userId).where('region_id', '=', regionId).executeTakeFirst();
  return row !== undefined;
}

export async function setSubscribed(db: Executor, userId: number, regionId: number, subscribed: boolean, now: Date): Promise<void> {
  if (subscribed) {
    await db.insertInto('forum_subscriptions').values({ user_id: userId, region_id: regionId, subscribed_at: now })
      .onConflict((oc) => oc.columns(['user_id', 'region_id']).doNothing()).execute();
  } else {
    await db.deleteFrom('forum_subscriptions').where('user_id', '=', userId).where('region_id', '=', regionId).execute();
  }
}

/**
 * The settings of `acting`'s one member (a CTE) for the regions `ids`, with `subscribed`, at `now`,
 * checking each membership as they are written: nothing is written unless the member is a member of
 * every region named and `mayWrite` holds; `not_member` has the regions they are not a member of.
 * Two settings of one member at once (two tabs) wait for each other (`serialised`, taken before either
 * writes): each inserts and deletes several of the member's rows, in no set order, and without it they
 * waited for each other's rows in a circle (a deadlock: one answered 503).
 */
function settingSubscriptions(ids: string, subscribed: string, now: string, mayWrite: string): string {
  return `wanted as (select * from unnest(${ids}::integer[], ${subscribed}::boolean[]) as w(region_id, subscribed)),
  not_member as (select w.region_id from wanted w, acting a where not ${isMemberSql('a.user_id', 'w.region_id')}),
  serialised as (select ${lockOfSql('forum-subscriptions', 'a.user_id')} from acting a),
  allowed as (select exists (select 1 from acting) and not exists (select 1 from not_member) and ${mayWrite}
    and (select count(*) from serialised) = 1 as ok),
  added as (
    insert into forum_subscriptions (user_id, region_id, subscribed_at)
    select a.user_id, w.region_id, ${now} from wanted w, acting a where w.subscribed and (select ok from allowed)
    on conflict (user_id, region_id) do nothing
  ),
  removed as (
    delete from forum_subscriptions f using wanted w, acting a
    where f.user_id = a.user_id and f.region_id = w.region_id and not w.subscribed and (select ok from allowed)
  )`;
}

const setSubscriptionsStatement = statement<{ region_id: number }>('set_forum_subscriptions', `
  with acting as (select $1::integer as user_id), ${settingSubscriptions('$2', '$3', '$4', 'true')}
  select region_id from not_member`);

const setSubscriptionsInSessionStatement = statement<{ session_check: SessionCheck; not_member: number[] }>('set_forum_subscriptions_in_session', inLiveSessionWithCsrf(`,
  acting as (select user_id from live), ${settingSubscriptions('$5', '$6', '$2', '$7')}
  select ${SESSION_CHECK}, array(select region_id from not_member) as not_member`));

/**
 * Several regions' settings of a member in one statement, which checks the
 * membership of each as it writes: when the user is not a member of every
 * region named, nothing is written and the regions they are not a member of
 * are returned (empty when all was written). Region ids must be distinct.
 */
export async function setMemberSubscriptions(db: Executor, userId: number, settings: ReadonlyMap<number, boolean>, now: Date): Promise<Set<number>> {
  const rows = await setSubscriptionsStatement.rows(db, [userId, [...settings.keys()], [...settings.values()], now]);
  return new Set(rows.map((r) => r.region_id));
}

/**
 * The same for the member of the session the statement reads, at the session's `now`, after it
 * checked the CSRF token (sessions.ts `inLiveSessionWithCsrf`): nothing is written without a live
 * session, with another token, or unless `write`; `notMember` is empty without a live session.
 */
export async function setSessionMemberSubscriptions(
  db: Executor, session: CheckedSessionParams, settings: ReadonlyMap<number, boolean>, write: boolean,
): Promise<{ sessionCheck: SessionCheck; notMember: Set<number> }> {
  const [row] = await setSubscriptionsInSessionStatement.rows(db, [...session, [...settings.keys()], [...settings.values()], write]);
  return { sessionCheck: row!.session_check, notMember: new Set(row!.not_member) };
}

export async function listSubscribedRegionIds(db: Executor, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute();
  return rows.map((r) => r.region_id);
}

/**
 * The scheduled purge's part: subscriptions of deleted members. A member's deletion deletes theirs; one the
 * member set at that very moment can outlive it (its statement read the live session before the deletion
 * committed). The other tables the deletion empties refuse such a write (migration 074); this one, the REST
 * write's hot path, names no one to anyone, and is cleared here instead (users_deleted_idx).
 */
export function purgeSubscriptionsOfDeletedMembers(db: Executor): Promise<number> {
  return deleteInBatches(db, 'forum_subscriptions', sql<boolean>`user_id in (select id from users where deleted_at is not null)`);
}
