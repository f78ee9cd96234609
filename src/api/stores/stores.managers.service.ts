/** Making a user a manager of a store (SPEC-API: POST /api/stores/{storeId}/managers/{userId}). */
import { ROLES } from '../../accounts/roles.ts';
import { findUserById } from '../../accounts/users.repository.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { findStoreOrThrow, relationToStore } from './stores.access.ts';
import { storeProblems } from './stores.problems.ts';
import { MAX_STORE_MANAGERS, mayAppointManager, mayExceedManagerLimit } from './stores.policy.ts';
import { countManagers, findTeamRole, insertStoreLog, setTeamRole } from './stores.repository.ts';

/**
 * Makes the user a team member and manager of the store and logs it. The
 * store's row lock serialises concurrent appointments, so the limit of
 * {@link MAX_STORE_MANAGERS} holds under load. 404 → 403 → `checkInput()` (the query) → 422.
 */
export async function appointStoreManager(
  db: DB, clock: Clock, actor: Actor, storeId: PathId, userId: PathId, checkInput: () => void,
): Promise<void> {
  const store = await findStoreOrThrow(db, storeId);
  const relation = await relationToStore(db, store, actor);
  if (!mayAppointManager(actor, relation)) {
    throw storeProblems.mayNotAppoint();
  }
  checkInput();
  const user = await findUserById(db, userId.row);
  if (!user) throw storeProblems.userNotFound(userId.sent);
  if (user.role < ROLES['store-manager']) {
    throw storeProblems.roleTooLow();
  }
  const now = clock();
  await db.transaction().execute(async (trx) => {
    await findStoreOrThrow(trx, store.id, { lock: true });
    if (await findTeamRole(trx, store.id, user.id) === 'manager') {
      throw storeProblems.alreadyManager();
    }
    if (!mayExceedManagerLimit(actor, relation) && await countManagers(trx, store.id) >= MAX_STORE_MANAGERS) {
      throw storeProblems.managerLimit(MAX_STORE_MANAGERS);
    }
    await setTeamRole(trx, store.id, user.id, 'manager', now);
    await insertStoreLog(trx, {
      storeId: store.id, action: 'manager-appointed', actingUserId: actor.id, affectedUserId: user.id, createdAt: now,
    });
  });
}
