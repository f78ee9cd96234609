/** SQL for pickup slots and sign-ups. */
import type { Executor } from '../../db/executor.ts';

export interface PickupSlotRow { id: number; store_id: number; pickup_at: Date; capacity: number }

/** The slot at exactly `at`, row-locked so that concurrent sign-ups cannot overfill it. */
export function lockPickupSlot(db: Executor, storeId: number, at: Date): Promise<PickupSlotRow | undefined> {
  return db.selectFrom('store_pickup_slots').select(['id', 'store_id', 'pickup_at', 'capacity'])
    .where('store_id', '=', storeId).where('pickup_at', '=', at).forUpdate().executeTakeFirst();
}

export function findPickupSlot(db: Executor, storeId: number, at: Date): Promise<PickupSlotRow | undefined> {
  return db.selectFrom('store_pickup_slots').select(['id', 'store_id', 'pickup_at', 'capacity'])
    .where('store_id', '=', storeId).where('pickup_at', '=', at).executeTakeFirst();
}

export async function listSignupUserIds(db: Executor, slotId: number): Promise<number[]> {
  const rows = await db.selectFrom('store_pickup_signups').select('user_id').where('slot_id', '=', slotId).orderBy('signed_up_at').execute();
  return rows.map((r) => r.user_id);
}

export async function insertSignup(db: Executor, signup: { slotId: number; userId: number; isConfirmed: boolean; at: Date }): Promise<void> {
  await db.insertInto('store_pickup_signups')
    .values({ slot_id: signup.slotId, user_id: signup.userId, is_confirmed: signup.isConfirmed, signed_up_at: signup.at })
    .execute();
}

export async function insertPickupSlot(db: Executor, slot: { storeId: number; at: Date; capacity: number }): Promise<number> {
  const row = await db.insertInto('store_pickup_slots')
    .values({ store_id: slot.storeId, pickup_at: slot.at, capacity: slot.capacity })
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}
