/** Looks up a store and the actor's relation to it, answering 404 for an unknown store. */
import type { Executor } from '../../db/executor.ts';
import { isRegionAmbassador } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { StoreRelation } from './stores.policy.ts';
import { storeProblems } from './stores.problems.ts';
import { findStore, findTeamRole, lockStore, type StoreRow } from './stores.repository.ts';

export async function findStoreOrThrow(db: Executor, storeId: number, options: { lock?: boolean } = {}): Promise<StoreRow> {
  const store = options.lock ? await lockStore(db, storeId) : await findStore(db, storeId);
  if (!store) throw storeProblems.notFound(storeId);
  return store;
}

export async function relationToStore(db: Executor, store: StoreRow, actor: Actor): Promise<StoreRelation> {
  const [teamRole, isAmbassador] = await Promise.all([
    findTeamRole(db, store.id, actor.id),
    isRegionAmbassador(db, actor.id, store.region_id),
  ]);
  return { teamRole, isAmbassador };
}
