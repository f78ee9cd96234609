/** A region's map pin (SPEC-API: GET and POST /api/region/{regionId}/pin). */
import { findRegionById } from '../../accounts/regions.repository.ts';
import type { LiveSessionParams } from '../../accounts/sessions.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { regionProblems } from '../region.problems.ts';
import { isRegionAmbassador } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import type { PathId } from '../row-id.ts';
import { maySetRegionPin } from './region-pins.policy.ts';
import { findRegionWithPin, findRegionWithPinInSession, upsertRegionPin, type RegionWithPin } from './region-pins.repository.ts';
import type { RegionPin } from './region-pins.schemas.ts';

/** `checkInput` throws the query's validation error, deferred until after the 404s (SPEC-API order). */
export async function readRegionPin(db: DB, regionId: PathId, checkInput: () => void): Promise<RegionPin> {
  const pin = pinOf(regionId, await findRegionWithPin(db, regionId.row));
  checkInput();
  return pin;
}

/** The same in the statement that reads the session; undefined without a live session. */
export async function readRegionPinInSession(db: DB, session: LiveSessionParams, regionId: PathId): Promise<RegionPin | undefined> {
  const found = await findRegionWithPinInSession(db, session, regionId.row);
  return found.live ? pinOf(regionId, found.region) : undefined;
}

function pinOf(regionId: PathId, region: RegionWithPin | undefined): RegionPin {
  if (!region) throw regionProblems.notFound(regionId.sent);
  const { pin } = region;
  if (!pin) throw regionProblems.pinNotFound(regionId.sent);
  return { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status };
}

/**
 * Sets (creates or replaces) the pin; returns it as this request stored it (another request's pin set a
 * moment later is not this one's answer). `checkInput` throws the body's validation error, deferred until
 * after 404 and 403.
 */
export async function setRegionPin(db: DB, clock: Clock, actor: Actor, regionId: PathId, pin: RegionPin, checkInput: () => void): Promise<RegionPin> {
  await findRegionOrThrow(db, regionId);
  if (!maySetRegionPin(actor, await isRegionAmbassador(db, actor.id, regionId.row))) {
    throw regionProblems.mayNotSetPin();
  }
  checkInput();
  const stored = await upsertRegionPin(db, { region_id: regionId.row, ...pin }, clock());
  return { lat: stored.lat, lon: stored.lon, description: stored.description, status: stored.status };
}

async function findRegionOrThrow(db: DB, regionId: PathId): Promise<void> {
  if (!(await findRegionById(db, regionId.row))) throw regionProblems.notFound(regionId.sent);
}
