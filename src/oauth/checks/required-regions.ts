/**
 * Required regions (SPEC §5.2 step 5): a client's empty list admits everyone;
 * otherwise the user must be a member of any one of them. Pure: the caller
 * looks up which of the required regions the user belongs to
 * (accounts/region-access.ts `findMemberRegionIds`).
 */

/** Whether a user who is a member of `memberOf` (among the required ones, or more) may use the client. */
export function isInRequiredRegions(requiredRegions: readonly number[], memberOf: ReadonlySet<number>): boolean {
  return requiredRegions.length === 0 || requiredRegions.some((regionId) => memberOf.has(regionId));
}
