import { isOrga } from '../../accounts/roles.ts';
import type { Actor } from '../actor.ts';

/** Members of the region or working group, and orga (SPEC-API). */
export function mayFollowForum(actor: Actor, isMember: boolean): boolean {
  return isMember || isOrga(actor);
}
