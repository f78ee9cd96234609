/** Making a user a manager of a store (SPEC-API: POST /api/stores/{storeId}/managers/{userId}). */
import { ROLES } from '../../accounts/roles.ts';
import { findUserById } from '../../accounts/users.repository.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ApiProblem } from '../plugin/problem.ts';
import type { Actor } from '../region-access.repository.ts';
import { findStoreOrThrow, relationToStore } from './stores.access.ts';
import { MAX_STORE_MANAGERS, mayAppointManager, mayExceedManagerLimit } from './stores.policy.ts';
import { countManagers, findTeamRole, insertStoreLog, setTeamRole } from './stores.repository.ts';

/**
 * Makes the user a team member and manager of the store and logs it. The
 * store's row lock serialises concurrent appointments, so the limit of
 * {@link MAX_STORE_MANAGERS} holds under load.
 */
export async function appointStoreManager(db: DB, clock: Clock, actor: Actor, storeId: number, userId: number): Promise<void> {
  const store = await findStoreOrThrow(db, storeId);
  const relation = await relationToStore(db, store, actor);
  if (!mayAppointManager(actor, relation)) {
    throw new ApiProblem(403, 'store.forbidden', 'Only orga, the store\'s managers and ambassadors of its region may appoint store managers.');
  }
  const user = await findUserById(db, userId);
  if (!user) throw new ApiProblem(422, 'store.user-not-found', `There is no user ${userId}.`);
  if (user.role < ROLES['store-manager']) {
    throw new ApiProblem(422, 'store.role-too-low', 'The user\'s role is below store manager: they must pass the store manager quiz first.');
  }
  const now = clock();
  await db.transaction().execute(async (trx) => {
    await findStoreOrThrow(trx, store.id, { lock: true });
    if (await findTeamRole(trx, store.id, user.id) === 'manager') {
      throw new ApiProblem(422, 'store.already-manager', 'The user already manages this store.');
    }
    if (!mayExceedManagerLimit(actor, relation) && await countManagers(trx, store.id) >= MAX_STORE_MANAGERS) {
      throw new ApiProblem(422, 'store.manager-limit', `A store has at most ${MAX_STORE_MANAGERS} managers.`);
    }
    await setTeamRole(trx, store.id, user.id, 'manager', now);
    await insertStoreLog(trx, {
      storeId: store.id, action: 'manager-appointed', actingUserId: actor.id, affectedUserId: user.id, createdAt: now,
    });
  });
}
