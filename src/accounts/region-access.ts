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

/**
 * The same look-ups as SQL expressions, for a statement that answers with one
 * query (userinfo, SPEC §8): the ids, ascending, of the regions the user
 * `userId` (an SQL expression of the outer query) is a member or an
 * ambassador of.
 */
export function memberRegionIdsSql(userId: string): string {
  return `array(select m.region_id from region_memberships m where m.user_id = ${userId} order by m.region_id)`;
}

/** Whether the user `userId` is a member of the region `regionId` (SQL expressions of the outer query), as an SQL condition. */
export function isMemberSql(userId: string, regionId: string): string {
  return `exists (select 1 from region_memberships m where m.user_id = ${userId} and m.region_id = ${regionId})`;
}

export function ambassadorRegionIdsSql(userId: string): string {
  return `array(select a.region_id from region_ambassadors a where a.user_id = ${userId} order by a.region_id)`;
}

export interface MemberCount {
  /** The lowest role counted. */
  minRole: number;
  verifiedOnly?: boolean;
  /** Only members whose home region it is. */
  homeRegionOnly?: boolean;
}

/** Members of a region with at least `minRole`, optionally only verified ones or those at home there. */
export async function countRegionMembers(db: Executor, regionId: number, { minRole, verifiedOnly = false, homeRegionOnly = false }: MemberCount): Promise<number> {
  let query = db.selectFrom('region_memberships as m').innerJoin('users as u', 'u.id', 'm.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('m.region_id', '=', regionId)
    .where('u.role', '>=', minRole);
  if (verifiedOnly) query = query.where('u.verified', '=', true);
  if (homeRegionOnly) query = query.where('u.home_region_id', '=', regionId);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export async function countRegionAmbassadors(db: Executor, regionId: number): Promise<number> {
  const row = await db.selectFrom('region_ambassadors').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('region_id', '=', regionId).executeTakeFirstOrThrow();
  return Number(row.n);
}
