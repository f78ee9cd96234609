import type { Executor } from '../db/executor.ts';
import type { RegionType } from './accounts.tables.ts';

export interface RegionRow {
  id: number;
  name: string;
  parent_id: number | null;
  type: RegionType;
}

export async function insertRegion(db: Executor, region: { name: string; parentId: number | null; type: RegionType }): Promise<number> {
  const row = await db.insertInto('regions')
    .values({ name: region.name, parent_id: region.parentId, type: region.type })
    .returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export function findRegionById(db: Executor, id: number): Promise<RegionRow | undefined> {
  return db.selectFrom('regions').select(['id', 'name', 'parent_id', 'type']).where('id', '=', id).executeTakeFirst();
}

export async function findExistingRegionIds(db: Executor, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('regions').select('id').where('id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.id));
}

export function listRegions(db: Executor): Promise<RegionRow[]> {
  return db.selectFrom('regions').select(['id', 'name', 'parent_id', 'type']).orderBy('id').execute();
}
