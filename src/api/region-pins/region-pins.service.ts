/** A region's map pin (SPEC-API: GET and POST /api/region/{regionId}/pin). */
import { findRegionById } from '../../accounts/regions.repository.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { regionProblems } from '../region.problems.ts';
import { isRegionAmbassador } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import { maySetRegionPin } from './region-pins.policy.ts';
import { findRegionWithPin, upsertRegionPin } from './region-pins.repository.ts';
import type { RegionPin } from './region-pins.schemas.ts';

export async function readRegionPin(db: DB, regionId: number): Promise<RegionPin> {
  const region = await findRegionWithPin(db, regionId);
  if (!region) throw regionProblems.notFound(regionId);
  const { pin } = region;
  if (!pin) throw regionProblems.pinNotFound(regionId);
  return { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status };
}

/**
 * Sets (creates or replaces) the pin; returns it as stored. `checkInput`
 * throws the body's validation error, deferred until after 404 and 403.
 */
export async function setRegionPin(db: DB, clock: Clock, actor: Actor, regionId: number, pin: RegionPin, checkInput: () => void): Promise<RegionPin> {
  await findRegionOrThrow(db, regionId);
  if (!maySetRegionPin(actor, await isRegionAmbassador(db, actor.id, regionId))) {
    throw regionProblems.mayNotSetPin();
  }
  checkInput();
  await upsertRegionPin(db, { region_id: regionId, ...pin }, clock());
  return readRegionPin(db, regionId);
}

async function findRegionOrThrow(db: DB, regionId: number): Promise<void> {
  if (!(await findRegionById(db, regionId))) throw regionProblems.notFound(regionId);
}
