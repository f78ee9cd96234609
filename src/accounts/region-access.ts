/**
 * Who belongs to which region (SPEC §4): the membership and ambassadorship
 * look-ups that `/api`'s policies and OAuth's required-regions check need,
 * in one place below both.
 */
import type { Executor } from '../db/executor.ts';
import { statement } from '../db/statement.ts';

export async function isRegionMember(db: Executor, userId: number, regionId: number): Promise<boolean> {
  const row = await db.selectFrom('region_memberships').select('user_id')
    .where('user_id', '=', userId).where('region_id', '=', regionId).executeTakeFirst();
  return row !== undefined;
}

export async function isRegionAmbassador(db: Executor, userId: number, regionId: number): Promise<boolean> {
  const row = await db.selectFrom('region_ambassadors').select('user_id')
    .where('user_id', '=', userId).where('region_id', '=', regionId).executeTakeFirst();
  return row !== undefined;
}

/** The subset of `regionIds` the user is a member of. */
const memberRegionIds = statement<{ region_id: number }>('find_member_region_ids',
  'select region_id from region_memberships where user_id = $1 and region_id = any($2::integer[])');

export async function findMemberRegionIds(db: Executor, userId: number, regionIds: readonly number[]): Promise<Set<number>> {
  if (regionIds.length === 0) return new Set();
  const rows = await memberRegionIds.rows(db, [userId, [...regionIds]]);
  return new Set(rows.map((r) => r.region_id));
}
