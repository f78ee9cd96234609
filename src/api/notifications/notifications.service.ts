/** Email notification settings per region (SPEC-API: PATCH /api/notifications/regions). */
import type { CheckedSessionParams, SessionCheck } from '../../accounts/sessions.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ValidationFailed } from '../plugin/problem.ts';
import { regionProblems } from '../region.problems.ts';
import { setMemberSubscriptions, setSessionMemberSubscriptions } from '../forum/forum.repository.ts';
import { lookupId, NO_ROW_ID } from '../row-id.ts';
import { findMemberRegionIds } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { RegionNotificationSetting } from './notifications.schemas.ts';

/**
 * Updates every setting in one statement, or none: one id that is not a
 * region or working group the caller is a member of refuses the whole request
 * (the statement checks the memberships as it writes). That refusal comes
 * before the one of an id named twice. `beforeWrite` (a precondition's check) runs after them, before anything
 * is written.
 */
export async function updateRegionNotifications(
  db: DB, clock: Clock, actor: Actor, settings: readonly RegionNotificationSetting[], beforeWrite?: () => void,
): Promise<void> {
  const ids = settings.map((s) => s.id);
  const rowIds = ids.map((id) => lookupId(String(id)));
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined || beforeWrite) {
    // Read apart from the write: the refusals of a foreign region and of an id named twice, then `beforeWrite` (a precondition).
    refuseForeign(ids, rowIds, await findMemberRegionIds(db, actor.id, rowIds.filter((id) => id !== NO_ROW_ID)));
    if (duplicate !== undefined) throw new ValidationFailed([{ field: 'body', message: `region ${duplicate} appears more than once` }]);
    beforeWrite?.();
  }
  const notMemberOf = await setMemberSubscriptions(db, actor.id, new Map(settings.map((s, i) => [rowIds[i]!, s.notifyByEmailAboutNewThreads])), clock());
  refuseForeign(ids, rowIds, { has: (rowId) => !notMemberOf.has(rowId) });
}

/**
 * The same in the statement that reads the session and checks the CSRF token: `checkSession` throws
 * their problem first; then the refusal of a region the member is not in, then that of an id named twice.
 */
export async function updateRegionNotificationsInSession(
  db: DB, session: CheckedSessionParams, settings: readonly RegionNotificationSetting[], checkSession: (check: SessionCheck) => void,
): Promise<void> {
  const ids = settings.map((s) => s.id);
  const rowIds = ids.map((id) => lookupId(String(id)));
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  const wanted = new Map(settings.map((s, i) => [rowIds[i]!, s.notifyByEmailAboutNewThreads]));
  const { sessionCheck, notMember } = await setSessionMemberSubscriptions(db, session, wanted, duplicate === undefined);
  checkSession(sessionCheck);
  refuseForeign(ids, rowIds, { has: (rowId) => !notMember.has(rowId) });
  if (duplicate !== undefined) throw new ValidationFailed([{ field: 'body', message: `region ${duplicate} appears more than once` }]);
}

/** The problem for the first id, in the request's order, of a region the caller is not a member of. */
function refuseForeign(ids: readonly number[], rowIds: readonly number[], memberOf: { has(rowId: number): boolean }): void {
  const foreign = ids.find((_, i) => !memberOf.has(rowIds[i]!));
  if (foreign !== undefined) throw regionProblems.notMember(foreign);
}
