/** SQL for forum subscriptions (email about every new thread of a region's forum). */
import type { Executor } from '../../db/executor.ts';

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

export async function listSubscribedRegionIds(db: Executor, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('forum_subscriptions').select('region_id').where('user_id', '=', userId).orderBy('region_id').execute();
  return rows.map((r) => r.region_id);
}
