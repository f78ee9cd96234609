/** SQL for forum subscriptions (email about every new thread of a region's forum). */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';

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

const setSubscriptionsStatement = statement('set_forum_subscriptions', `
  with wanted as (select * from unnest($2::integer[], $3::boolean[]) as w(region_id, subscribed)),
  added as (
    insert into forum_subscriptions (user_id, region_id, subscribed_at)
    select $1, region_id, $4 from wanted where subscribed
    on conflict (user_id, region_id) do nothing
  )
  delete from forum_subscriptions f using wanted w
  where f.user_id = $1 and f.region_id = w.region_id and not w.subscribed`);

/** Several regions' settings in one statement: all of them or, on failure, none. */
export async function setSubscriptions(db: Executor, userId: number, settings: ReadonlyMap<number, boolean>, now: Date): Promise<void> {
  await setSubscriptionsStatement.changes(db, [userId, [...settings.keys()], [...settings.values()], now]);
}

export async function listSubscribedRegionIds(db: Executor, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute();
  return rows.map((r) => r.region_id);
}
