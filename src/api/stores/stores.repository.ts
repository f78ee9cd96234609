/** SQL for stores and their teams, wall posts and the store log. */
import type { Executor } from '../../db/executor.ts';
import type { StoreLogAction, StoreTeamRole } from './stores.tables.ts';

export interface StoreRow { id: number; name: string; region_id: number }

export function findStore(db: Executor, id: number): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').select(['id', 'name', 'region_id']).where('id', '=', id).executeTakeFirst();
}

/** Takes the store's row lock: serialises changes of its team (the manager limit). */
export function lockStore(db: Executor, id: number): Promise<StoreRow | undefined> {
  return db.selectFrom('stores').select(['id', 'name', 'region_id']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function findTeamRole(db: Executor, storeId: number, userId: number): Promise<StoreTeamRole | undefined> {
  const row = await db.selectFrom('store_team').select('role')
    .where('store_id', '=', storeId).where('user_id', '=', userId).executeTakeFirst();
  return row?.role;
}

export async function countManagers(db: Executor, storeId: number): Promise<number> {
  const row = await db.selectFrom('store_team').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('store_id', '=', storeId).where('role', '=', 'manager').executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setTeamRole(db: Executor, storeId: number, userId: number, role: StoreTeamRole, now: Date): Promise<void> {
  await db.insertInto('store_team').values({ store_id: storeId, user_id: userId, role, joined_at: now })
    .onConflict((oc) => oc.columns(['store_id', 'user_id']).doUpdateSet({ role })).execute();
}

export interface NewStoreLogEntry {
  storeId: number;
  action: StoreLogAction;
  actingUserId: number;
  affectedUserId: number | null;
  dateReference?: Date | null;
  content?: string | null;
  createdAt: Date;
}

export async function insertStoreLog(db: Executor, entry: NewStoreLogEntry): Promise<void> {
  await db.insertInto('store_log').values({
    store_id: entry.storeId,
    action: entry.action,
    acting_user_id: entry.actingUserId,
    affected_user_id: entry.affectedUserId,
    date_reference: entry.dateReference ?? null,
    content: entry.content ?? null,
    created_at: entry.createdAt,
  }).execute();
}

export async function insertStore(db: Executor, store: { name: string; regionId: number; address: string }): Promise<number> {
  const row = await db.insertInto('stores').values({ name: store.name, region_id: store.regionId, address: store.address })
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}
