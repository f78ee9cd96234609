/** SQL for region map pins. */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';

export interface RegionPinRow { region_id: number; lat: number; lon: number; description: string; status: number }

const regionAndPin = statement<{ region_id: number; lat: number | null; lon: number | null; description: string | null; status: number | null }>('find_region_pin', `
  select r.id as region_id, p.lat, p.lon, p.description, p.status
  from regions r left join region_pins p on p.region_id = r.id where r.id = $1`);

/** One indexed query: undefined for an unknown region, `pin: undefined` for a region without a pin. */
export async function findRegionWithPin(db: Executor, regionId: number): Promise<{ pin: RegionPinRow | undefined } | undefined> {
  const row = (await regionAndPin.rows(db, [regionId]))[0];
  if (!row) return undefined;
  const { lat, lon, description, status } = row;
  if (lat === null || lon === null || description === null || status === null) return { pin: undefined };
  return { pin: { region_id: row.region_id, lat, lon, description, status } };
}

export async function upsertRegionPin(db: Executor, pin: RegionPinRow, now: Date): Promise<void> {
  const values = { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status, updated_at: now };
  await db.insertInto('region_pins').values({ region_id: pin.region_id, ...values })
    .onConflict((oc) => oc.column('region_id').doUpdateSet(values)).execute();
}
