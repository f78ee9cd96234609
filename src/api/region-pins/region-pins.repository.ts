/** SQL for region map pins. */
import type { Executor } from '../../db/executor.ts';
import { statement } from '../../db/statement.ts';
import { inLiveSession, type LiveSessionParams } from '../../accounts/sessions.ts';

export interface RegionPinRow { region_id: number; lat: number; lon: number; description: string; status: number }

type RegionAndPinRow = { region_id: number | null; lat: number | null; lon: number | null; description: string | null; status: number | null };

const REGION_AND_PIN = `select r.id as region_id, p.lat, p.lon, p.description, p.status`;

const regionAndPin = statement<RegionAndPinRow>('find_region_pin', `
  ${REGION_AND_PIN} from regions r left join region_pins p on p.region_id = r.id where r.id = $1`);

const regionAndPinInSession = statement<RegionAndPinRow>('find_region_pin_in_session', inLiveSession(`
  ${REGION_AND_PIN} from live left join regions r on r.id = $4 left join region_pins p on p.region_id = r.id`));

export interface RegionWithPin { pin: RegionPinRow | undefined }

/** One indexed query: undefined for an unknown region, `pin: undefined` for a region without a pin. */
export async function findRegionWithPin(db: Executor, regionId: number): Promise<RegionWithPin | undefined> {
  return regionWithPin((await regionAndPin.rows(db, [regionId]))[0]);
}

/** The same, in the statement that reads the session: `live: false` without a live session. */
export async function findRegionWithPinInSession(
  db: Executor, session: LiveSessionParams, regionId: number,
): Promise<{ live: false } | { live: true; region: RegionWithPin | undefined }> {
  const row = (await regionAndPinInSession.rows(db, [...session, regionId]))[0];
  return row ? { live: true, region: regionWithPin(row) } : { live: false };
}

function regionWithPin(row: RegionAndPinRow | undefined): RegionWithPin | undefined {
  if (!row || row.region_id === null) return undefined;
  const { lat, lon, description, status } = row;
  if (lat === null || lon === null || description === null || status === null) return { pin: undefined };
  return { pin: { region_id: row.region_id, lat, lon, description, status } };
}

/** Creates or replaces the pin; the pin as this statement stored it (not as another, later one left it). */
export async function upsertRegionPin(db: Executor, pin: RegionPinRow, now: Date): Promise<RegionPinRow> {
  const values = { lat: pin.lat, lon: pin.lon, description: pin.description, status: pin.status, updated_at: now };
  return db.insertInto('region_pins').values({ region_id: pin.region_id, ...values })
    .onConflict((oc) => oc.column('region_id').doUpdateSet(values))
    .returning(['region_id', 'lat', 'lon', 'description', 'status']).executeTakeFirstOrThrow();
}
