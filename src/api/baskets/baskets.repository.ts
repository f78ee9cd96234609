import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { BasketsTable } from './baskets.tables.ts';

export interface BasketRow extends Selectable<BasketsTable> {
  creator_first_name: string;
  creator_photo: string | null;
  creator_sleeping: boolean;
  request_count: number;
}

export interface BasketFields {
  description: string;
  pictures: string[];
  contactTypes: number[];
  mobile: string | null;
  telephone: string | null;
  lat: number;
  lon: number;
  lifeTimeInDays: number;
  weightInGrams: number;
}

/** Request status values that still wait for the creator (SPEC-API). */
export const OPEN_REQUEST_STATUSES = [0, 1] as const;
export const WITHDRAWN = 5;

/** The basket with its creator and open requests; `lock` holds its row (not the creator's) until the transaction ends. */
export async function findBasket(db: Executor, id: number, lock = false): Promise<BasketRow | undefined> {
  return db.selectFrom('baskets as b')
    .innerJoin('users as u', 'u.id', 'b.creator_id')
    .selectAll('b')
    .select([
      'u.first_name as creator_first_name', 'u.photo as creator_photo', 'u.sleeping as creator_sleeping',
      (eb) => eb.selectFrom('basket_requests as r').whereRef('r.basket_id', '=', 'b.id')
        .where('r.status', 'in', [...OPEN_REQUEST_STATUSES])
        .select(sql<number>`count(*)::integer`.as('n')).as('request_count'),
    ])
    .where('b.id', '=', id)
    .$if(lock, (query) => query.forUpdate('b'))
    .executeTakeFirst() as Promise<BasketRow | undefined>;
}

export async function insertBasket(db: Executor, creatorId: number, fields: BasketFields, now: Date, until: Date): Promise<number> {
  const row = await db.insertInto('baskets').values({
    creator_id: creatorId, ...toColumns(fields), created_at: now, updated_at: now, until,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Updates only while the basket is still active and unexpired; false when it no longer is. */
export async function updateBasket(db: Executor, id: number, fields: BasketFields, now: Date): Promise<boolean> {
  const result = await db.updateTable('baskets').set({ ...toColumns(fields), updated_at: now })
    .where('id', '=', id).where('status', '=', 1).where('until', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

function toColumns(fields: BasketFields) {
  return {
    description: fields.description,
    pictures: JSON.stringify(fields.pictures),
    contact_types: JSON.stringify(fields.contactTypes),
    mobile: fields.mobile,
    telephone: fields.telephone,
    lat: fields.lat,
    lon: fields.lon,
    life_time_in_days: fields.lifeTimeInDays,
    weight_in_grams: fields.weightInGrams,
  };
}

export async function findRequestStatus(db: Executor, basketId: number, userId: number): Promise<number | undefined> {
  const row = await db.selectFrom('basket_requests').select('status')
    .where('basket_id', '=', basketId).where('user_id', '=', userId).executeTakeFirst();
  return row?.status;
}

/** Sends a request, or sends it again after the user withdrew it; false when another request stands. */
export async function upsertRequest(db: Executor, basketId: number, userId: number, now: Date): Promise<boolean> {
  const row = await db.insertInto('basket_requests')
    .values({ basket_id: basketId, user_id: userId, status: 0, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['basket_id', 'user_id']).doUpdateSet({ status: 0, updated_at: now })
      .where('basket_requests.status', '=', WITHDRAWN))
    .returning('status')
    .executeTakeFirst();
  return row !== undefined;
}

/** Withdraws the user's open request; false when there is none. */
export async function withdrawOpenRequest(db: Executor, basketId: number, userId: number, now: Date): Promise<boolean> {
  const result = await db.updateTable('basket_requests').set({ status: WITHDRAWN, updated_at: now })
    .where('basket_id', '=', basketId).where('user_id', '=', userId)
    .where('status', 'in', [...OPEN_REQUEST_STATUSES])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
