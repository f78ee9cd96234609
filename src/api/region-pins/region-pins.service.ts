/** A region's map pin (SPEC-API: GET and POST /api/region/{regionId}/pin). */
import { findRegionById } from '../../accounts/regions.repository.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ApiProblem } from '../plugin/problem.ts';
import { isRegionAmbassador, type Actor } from '../region-access.repository.ts';
import { maySetRegionPin } from './region-pins.policy.ts';
import { findRegionWithPin, upsertRegionPin } from './region-pins.repository.ts';
import type { RegionPin } from './region-pins.schemas.ts';

export async function readRegionPin(db: DB, regionId: number): Promise<RegionPin> {
  const region = await findRegionWithPin(db, regionId);
  if (!region) throw new ApiProblem(404, 'region.not-found', `There is no region ${regionId}.`);
  const { pin } = region;
  if (!pin) throw new ApiProblem(404, 'region.pin-not-found', `Region ${regionId} has no pin.`);
  return { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status };
}

/**
 * Sets (creates or replaces) the pin; returns it as stored. `checkInput`
 * throws the body's validation error, deferred until after 404 and 403.
 */
export async function setRegionPin(db: DB, clock: Clock, actor: Actor, regionId: number, pin: RegionPin, checkInput: () => void): Promise<RegionPin> {
  await findRegionOrThrow(db, regionId);
  if (!maySetRegionPin(actor, await isRegionAmbassador(db, actor.id, regionId))) {
    throw new ApiProblem(403, 'region.forbidden', 'Only orga and ambassadors of this region may set its pin.');
  }
  checkInput();
  await upsertRegionPin(db, { region_id: regionId, ...pin }, clock());
  return readRegionPin(db, regionId);
}

async function findRegionOrThrow(db: DB, regionId: number): Promise<void> {
  if (!(await findRegionById(db, regionId))) throw new ApiProblem(404, 'region.not-found', `There is no region ${regionId}.`);
}
