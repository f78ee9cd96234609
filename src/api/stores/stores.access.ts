/** Looks up a store and the actor's relation to it, answering 404 for an unknown store. */
import type { Executor } from '../../db/executor.ts';
import { isRegionAmbassador } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import type { StoreRelation } from './stores.policy.ts';
import { storeProblems } from './stores.problems.ts';
import { findStore, findTeamRole, lockStore, type StoreRow } from './stores.repository.ts';

/** `storeId` is a store's row id, or a path id as sent (which the 404 names). */
export async function findStoreOrThrow(db: Executor, storeId: number | PathId, options: { lock?: boolean } = {}): Promise<StoreRow> {
  const { row, sent } = typeof storeId === 'number' ? { row: storeId, sent: storeId } : storeId;
  const store = options.lock ? await lockStore(db, row) : await findStore(db, row);
  if (!store) throw storeProblems.notFound(sent);
  return store;
}

export async function relationToStore(db: Executor, store: StoreRow, actor: Actor): Promise<StoreRelation> {
  const [teamRole, isAmbassador] = await Promise.all([
    findTeamRole(db, store.id, actor.id),
    isRegionAmbassador(db, actor.id, store.region_id),
  ]);
  return { teamRole, isAmbassador };
}
