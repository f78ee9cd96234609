/**
 * Who may do what in a store (SPEC-API, "The seed's operations"). Pure: the
 * service looks up the facts, these functions decide.
 */
import { ROLES } from '../../accounts/roles.ts';
import type { Actor } from '../actor.ts';
import type { StoreTeamRole } from './stores.tables.ts';

/** What the service found out about the actor's relation to the store. */
export interface StoreRelation {
  /** The actor's place in the store's team, if any. */
  readonly teamRole: StoreTeamRole | undefined;
  /** Whether the actor is an ambassador of the store's region. */
  readonly isAmbassador: boolean;
}

/** Store managers may remove other people's posts only once they are this old. */
export const MANAGER_DELETE_MIN_AGE_MONTHS = 1;
export const MAX_STORE_MANAGERS = 3;

function isOrgaActor(actor: Actor): boolean {
  return actor.role >= ROLES.orga;
}

/** Orga, members and managers (standby members do not see the wall), ambassadors of the store's region. */
export function mayViewWall(actor: Actor, relation: StoreRelation): boolean {
  return isOrgaActor(actor) || relation.teamRole === 'member' || relation.teamRole === 'manager' || relation.isAmbassador;
}

/** Orga any post; the author their own; a manager of the store others' posts older than one month. */
export function mayDeleteWallPost(actor: Actor, relation: StoreRelation, post: { authorId: number; createdAt: Date }, now: Date): boolean {
  if (isOrgaActor(actor) || post.authorId === actor.id) return true;
  return relation.teamRole === 'manager' && addMonthsUtc(post.createdAt, MANAGER_DELETE_MIN_AGE_MONTHS) <= now;
}

/** Verified members and managers sign themselves up; standby members and unverified users do not. */
export function maySignUpForPickup(actor: Actor, relation: StoreRelation): boolean {
  return actor.verified && (relation.teamRole === 'member' || relation.teamRole === 'manager');
}

export function mayAppointManager(actor: Actor, relation: StoreRelation): boolean {
  return isOrgaActor(actor) || relation.teamRole === 'manager' || relation.isAmbassador;
}

/** Orga and ambassadors of the store's region may appoint beyond {@link MAX_STORE_MANAGERS}. */
export function mayExceedManagerLimit(actor: Actor, relation: StoreRelation): boolean {
  return isOrgaActor(actor) || relation.isAmbassador;
}

/** Calendar months; the 31st plus one month is the last day of the next month. */
export function addMonthsUtc(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}
