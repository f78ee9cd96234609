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

/**
 * Claims the next ask of the source, recording it as made now: true for the one request, on any instance,
 * that finds no ask since `askedBefore` (a minute ago); false for every other. The last good data is kept.
 */
export async function claimPetitionFetch(db: Executor, sourceUrl: string, now: Date, askedBefore: Date): Promise<boolean> {
  const claimed = await db.insertInto('petition_cache').values({ source_url: sourceUrl, last_attempt_at: now })
    .onConflict((oc) => oc.column('source_url').doUpdateSet({ last_attempt_at: now }).where('petition_cache.last_attempt_at', '<=', askedBefore))
    .returning('source_url').executeTakeFirst();
  return claimed !== undefined;
}
