/** Following a region's forum (SPEC-API: PUT/GET /api/regions/{regionId}/forum/subscriptions). */
import { findRegionById } from '../../accounts/regions.repository.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { regionProblems } from '../region.problems.ts';
import { isRegionMember } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { mayFollowForum } from './forum.policy.ts';
import { isSubscribed, setSubscribed } from './forum.repository.ts';

async function checkForumAccess(db: DB, actor: Actor, regionId: PathId): Promise<void> {
  if (!(await findRegionById(db, regionId.row))) throw regionProblems.notFound(regionId.sent);
  if (!mayFollowForum(actor, await isRegionMember(db, actor.id, regionId.row))) {
    throw regionProblems.mayNotFollowForum();
  }
}

export async function readForumSubscription(db: DB, actor: Actor, regionId: PathId, checkInput: () => void): Promise<{ isFollowing: boolean }> {
  await checkForumAccess(db, actor, regionId);
  checkInput();
  return { isFollowing: await isSubscribed(db, actor.id, regionId.row) };
}

/** `checkInput` throws the body/query validation error, deferred until after the 404 and 403 checks (SPEC-API order). */
export async function followForum(db: DB, clock: Clock, actor: Actor, regionId: PathId, isFollowing: boolean, checkInput: () => void): Promise<void> {
  await checkForumAccess(db, actor, regionId);
  checkInput();
  await setSubscribed(db, actor.id, regionId.row, isFollowing, clock());
}
