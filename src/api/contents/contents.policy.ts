import { isOrga } from '../../accounts/roles.ts';
import type { Actor } from '../actor.ts';

/** Content entries are edited by orga only (SPEC-API). */
export function mayEditContents(actor: Actor): boolean {
  return isOrga(actor);
}
