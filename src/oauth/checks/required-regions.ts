/** Required regions (SPEC §5.2 step 5): empty = everyone; otherwise membership in any one of them. */
import type { Executor } from '../../db/executor.ts';

export async function isInRequiredRegions(db: Executor, userId: number, requiredRegions: readonly number[]): Promise<boolean> {
  if (requiredRegions.length === 0) return true;
  const row = await db.selectFrom('region_memberships').select('region_id')
    .where('user_id', '=', userId).where('region_id', 'in', [...requiredRegions]).limit(1).executeTakeFirst();
  return row !== undefined;
}
