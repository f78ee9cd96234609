/** Signing up for a pickup slot (SPEC-API: POST /api/stores/{storeId}/pickups/{pickupDate}/{fsId}). */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ValidationFailed } from '../plugin/problem.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { parseRfc3339, type ParsedDateTime } from '../rfc3339.ts';
import { findStoreOrThrow, relationToStore } from './stores.access.ts';
import { maySignUpForPickup } from './stores.policy.ts';
import { storeProblems } from './stores.problems.ts';
import { findPickupSlot, insertSignup, listSignupUserIds, lockPickupSlot } from './stores.pickups.repository.ts';
import { insertStoreLog } from './stores.repository.ts';

/** Parses the path's `pickupDate`; a date that matches the pattern but does not exist (month 13) is a 400 too. */
export function parsePickupDate(value: string): ParsedDateTime {
  const parsed = parseRfc3339(value);
  if (!parsed) {
    throw new ValidationFailed([{ field: 'params/pickupDate', message: 'must be an RFC 3339 date-time, e.g. 2026-11-21T14:00:00+01:00' }]);
  }
  return parsed;
}

/**
 * RFC 3339 admits instants in the year 0000 and, through an offset, in 10000,
 * which the database drivers cannot send as `timestamptz`: no slot starts then.
 */
function isStorableInstant(date: Date): boolean {
  const year = date.getUTCFullYear();
  return year >= 1 && year <= 9999;
}

export interface PickupSignupRequest {
  storeId: PathId;
  pickupDate: ParsedDateTime;
  userId: number;
}

/**
 * Signs the caller up for the slot; returns whether the sign-up is confirmed at once (the caller manages the store).
 * 404 → 403 → `checkInput()` (the query) → 409.
 */
export async function signUpForPickup(
  db: DB, clock: Clock, actor: Actor, request: PickupSignupRequest, checkInput: () => void,
): Promise<{ isConfirmed: boolean }> {
  const store = await findStoreOrThrow(db, request.storeId);
  const slotMissing = request.pickupDate.hasSubMillisecond || !isStorableInstant(request.pickupDate.date)
    || !(await findPickupSlot(db, store.id, request.pickupDate.date));
  if (slotMissing) throw storeProblems.slotNotFound(store.id, request.pickupDate.text);
  if (request.userId !== actor.id) throw storeProblems.notYourself();
  const relation = await relationToStore(db, store, actor);
  if (!maySignUpForPickup(actor, relation)) {
    throw storeProblems.mayNotSignUp();
  }
  checkInput();
  const isConfirmed = relation.teamRole === 'manager';
  const now = clock();
  await db.transaction().execute(async (trx) => {
    const slot = await lockPickupSlot(trx, store.id, request.pickupDate.date);
    if (!slot) throw storeProblems.slotNotFound(store.id, request.pickupDate.text);
    if (slot.pickup_at.getTime() <= now.getTime()) throw storeProblems.pickupInPast();
    const signedUp = await listSignupUserIds(trx, slot.id);
    if (signedUp.includes(actor.id)) throw storeProblems.alreadySignedUp();
    if (signedUp.length >= slot.capacity) throw storeProblems.pickupFull();
    await insertSignup(trx, { slotId: slot.id, userId: actor.id, isConfirmed, at: now });
    await insertStoreLog(trx, {
      storeId: store.id, action: 'pickup-signed-up', actingUserId: actor.id, affectedUserId: actor.id,
      dateReference: slot.pickup_at, createdAt: now,
    });
  });
  return { isConfirmed };
}

