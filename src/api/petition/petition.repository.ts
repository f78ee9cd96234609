import type { Executor } from '../../db/executor.ts';
import type { PetitionCacheTable } from './petition.tables.ts';

export function findPetitionCache(db: Executor, sourceUrl: string): Promise<PetitionCacheTable | undefined> {
  return db.selectFrom('petition_cache').selectAll().where('source_url', '=', sourceUrl).executeTakeFirst();
}

export async function savePetitionData(db: Executor, sourceUrl: string, data: { href: string; signatures: number; daysLeft: number }, now: Date): Promise<void> {
  const values = { href: data.href, signatures: data.signatures, days_left: data.daysLeft, fetched_at: now, last_attempt_at: now };
  await db.insertInto('petition_cache').values({ source_url: sourceUrl, ...values })
    .onConflict((oc) => oc.column('source_url').doUpdateSet(values))
    .execute();
}

/** Records a failed fetch, keeping the last good data. */
export async function savePetitionAttempt(db: Executor, sourceUrl: string, now: Date): Promise<void> {
  await db.insertInto('petition_cache').values({ source_url: sourceUrl, last_attempt_at: now })
    .onConflict((oc) => oc.column('source_url').doUpdateSet({ last_attempt_at: now }))
    .execute();
}
