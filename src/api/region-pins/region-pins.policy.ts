import { isOrga } from '../../accounts/roles.ts';
import type { Actor } from '../actor.ts';

/** Orga, or an ambassador of that very region (SPEC-API). */
export function maySetRegionPin(actor: Actor, isAmbassadorOfRegion: boolean): boolean {
  return isOrga(actor) || isAmbassadorOfRegion;
}
