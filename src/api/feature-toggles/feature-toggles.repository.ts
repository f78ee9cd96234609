import type { Executor } from '../../db/executor.ts';

export async function findToggleStates(db: Executor): Promise<Map<string, boolean>> {
  const rows = await db.selectFrom('feature_toggles').select(['identifier', 'is_active']).execute();
  return new Map(rows.map((r) => [r.identifier, r.is_active]));
}

export async function findToggleState(db: Executor, identifier: string): Promise<boolean | undefined> {
  const row = await db.selectFrom('feature_toggles').select('is_active').where('identifier', '=', identifier).executeTakeFirst();
  return row?.is_active;
}

export async function saveToggleState(db: Executor, identifier: string, isActive: boolean, userId: number | null, now: Date): Promise<void> {
  await db.insertInto('feature_toggles')
    .values({ identifier, is_active: isActive, updated_at: now, updated_by: userId })
    .onConflict((oc) => oc.column('identifier').doUpdateSet({ is_active: isActive, updated_at: now, updated_by: userId }))
    .execute();
}

/** Flips atomically (two orga clicking at once flip twice, never lose one). */
export async function flipToggleState(db: Executor, identifier: string, defaultState: boolean, userId: number | null, now: Date): Promise<boolean> {
  const row = await db.insertInto('feature_toggles')
    .values({ identifier, is_active: !defaultState, updated_at: now, updated_by: userId })
    .onConflict((oc) => oc.column('identifier').doUpdateSet((eb) => ({
      is_active: eb.not(eb.ref('feature_toggles.is_active')),
      updated_at: now,
      updated_by: userId,
    })))
    .returning('is_active')
    .executeTakeFirstOrThrow();
  return row.is_active;
}
