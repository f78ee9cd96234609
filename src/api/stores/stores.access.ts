/** Looks up a store and the actor's relation to it, answering 404 for an unknown store. */
import type { Executor } from '../../db/executor.ts';
import { ApiProblem } from '../plugin/problem.ts';
import { isRegionAmbassador, type Actor } from '../region-access.repository.ts';
import type { StoreRelation } from './stores.policy.ts';
import { findStore, findTeamRole, lockStore, type StoreRow } from './stores.repository.ts';

export async function findStoreOrThrow(db: Executor, storeId: number, options: { lock?: boolean } = {}): Promise<StoreRow> {
  const store = options.lock ? await lockStore(db, storeId) : await findStore(db, storeId);
  if (!store) throw new ApiProblem(404, 'store.not-found', `There is no store ${storeId}.`);
  return store;
}

export async function relationToStore(db: Executor, store: StoreRow, actor: Actor): Promise<StoreRelation> {
  const [teamRole, isAmbassador] = await Promise.all([
    findTeamRole(db, store.id, actor.id),
    isRegionAmbassador(db, actor.id, store.region_id),
  ]);
  return { teamRole, isAmbassador };
}
