import { isOrga } from '../../accounts/roles.ts';
import type { Actor } from '../actor.ts';

/** Orga handle reports, but never one about themselves (SPEC-API). */
export function mayDeleteReport(actor: Actor, report: { reportedId: number }): boolean {
  return isOrga(actor) && report.reportedId !== actor.id;
}
