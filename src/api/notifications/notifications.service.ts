/** Email notification settings per region (SPEC-API: PATCH /api/notifications/regions). */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ValidationFailed } from '../plugin/problem.ts';
import { regionProblems } from '../region.problems.ts';
import { setSubscriptions } from '../forum/forum.repository.ts';
import { lookupId, NO_ROW_ID } from '../row-id.ts';
import { findMemberRegionIds } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { RegionNotificationSetting } from './notifications.schemas.ts';

/**
 * Updates every setting in one statement, or none: one id that is not a
 * region or working group the caller is a member of refuses the whole request.
 */
export async function updateRegionNotifications(db: DB, clock: Clock, actor: Actor, settings: readonly RegionNotificationSetting[]): Promise<void> {
  const ids = settings.map((s) => s.id);
  const rowIds = ids.map((id) => lookupId(String(id)));
  const memberOf = await findMemberRegionIds(db, actor.id, rowIds.filter((id) => id !== NO_ROW_ID));
  const foreign = ids.filter((id, i) => !memberOf.has(rowIds[i]!));
  if (foreign.length > 0) {
    throw regionProblems.notMember(foreign[0]!);
  }
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) {
    throw new ValidationFailed([{ field: 'body', message: `region ${duplicate} appears more than once` }]);
  }
  await setSubscriptions(db, actor.id, new Map(settings.map((s) => [s.id, s.notifyByEmailAboutNewThreads])), clock());
}
