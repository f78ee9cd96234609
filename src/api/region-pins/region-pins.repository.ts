/** SQL for region map pins. */
import type { Executor } from '../../db/executor.ts';

export interface RegionPinRow { region_id: number; lat: number; lon: number; description: string; status: number }

export function findRegionPin(db: Executor, regionId: number): Promise<RegionPinRow | undefined> {
  return db.selectFrom('region_pins').select(['region_id', 'lat', 'lon', 'description', 'status'])
    .where('region_id', '=', regionId).executeTakeFirst();
}

export async function upsertRegionPin(db: Executor, pin: RegionPinRow, now: Date): Promise<void> {
  const values = { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status, updated_at: now };
  await db.insertInto('region_pins').values({ region_id: pin.region_id, ...values })
    .onConflict((oc) => oc.column('region_id').doUpdateSet(values)).execute();
}
