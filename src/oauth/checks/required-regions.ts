/** Required regions (SPEC §5.2 step 5): empty = everyone; otherwise membership in any one of them. */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';

const membershipStatement = statement<{ found: number }>('is_in_regions', `
  select 1 as found from region_memberships where user_id = $1 and region_id = any($2::integer[]) limit 1`);

export async function isInRequiredRegions(db: Executor, userId: number, requiredRegions: readonly number[]): Promise<boolean> {
  if (requiredRegions.length === 0) return true;
  return (await membershipStatement.rows(db, [userId, [...requiredRegions]])).length > 0;
}
