/** Membership and ambassadorship look-ups that several `/api` areas' policies need. */
import type { Executor } from '../db/executor.ts';

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
export async function findMemberRegionIds(db: Executor, userId: number, regionIds: readonly number[]): Promise<Set<number>> {
  if (regionIds.length === 0) return new Set();
  const rows = await db.selectFrom('region_memberships').select('region_id')
    .where('user_id', '=', userId).where('region_id', 'in', [...regionIds]).execute();
  return new Set(rows.map((r) => r.region_id));
}

/** Who is acting: the logged-in user as the policies see them. */
export interface Actor {
  readonly id: number;
  readonly role: number;
  readonly verified: boolean;
}
