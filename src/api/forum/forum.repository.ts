/** SQL for forum subscriptions (email about every new thread of a region's forum). */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { isMemberSql } from '../../accounts/region-access.ts';

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

const setSubscriptionsStatement = statement<{ region_id: number }>('set_forum_subscriptions', `
  with wanted as (select * from unnest($2::integer[], $3::boolean[]) as w(region_id, subscribed)),
  not_member as (select region_id from wanted w where not ${isMemberSql('$1', 'w.region_id')}),
  allowed as (select not exists (select 1 from not_member) as ok),
  added as (
    insert into forum_subscriptions (user_id, region_id, subscribed_at)
    select $1, region_id, $4 from wanted where subscribed and (select ok from allowed)
    on conflict (user_id, region_id) do nothing
  ),
  removed as (
    delete from forum_subscriptions f using wanted w
    where f.user_id = $1 and f.region_id = w.region_id and not w.subscribed and (select ok from allowed)
  )
  select region_id from not_member`);

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

export async function listSubscribedRegionIds(db: Executor, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute();
  return rows.map((r) => r.region_id);
}
