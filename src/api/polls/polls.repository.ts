import type { Selectable } from 'kysely';
import { countRegionAmbassadors, countRegionMembers } from '../../accounts/region-access.ts';
import { ROLES } from '../../accounts/roles.ts';
import type { Executor } from '../../db/executor.ts';
import type { PollsTable } from './polls.tables.ts';

export type PollRow = Selectable<PollsTable>;

export interface NewPoll {
  regionId: number; authorId: number; name: string; description: string; scope: number; type: number;
  startDate: Date; endDate: Date; shuffleOptions: boolean; eligibleVotesCount: number;
}

export function findPoll(db: Executor, id: number): Promise<PollRow | undefined> {
  return db.selectFrom('polls').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertPoll(db: Executor, poll: NewPoll, now: Date): Promise<number> {
  const row = await db.insertInto('polls').values({
    region_id: poll.regionId, author_id: poll.authorId, name: poll.name, description: poll.description,
    scope: poll.scope, type: poll.type, start_date: poll.startDate, end_date: poll.endDate,
    creation_date: now, shuffle_options: poll.shuffleOptions, eligible_votes_count: poll.eligibleVotesCount,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Changes name, description and shuffling only while voting has not started; false otherwise. */
export async function updatePollTexts(
  db: Executor, id: number, changes: { name?: string; description?: string; shuffleOptions?: boolean }, now: Date,
): Promise<boolean> {
  const set = {
    ...(changes.name === undefined ? {} : { name: changes.name }),
    ...(changes.description === undefined ? {} : { description: changes.description }),
    ...(changes.shuffleOptions === undefined ? {} : { shuffle_options: changes.shuffleOptions }),
  };
  if (Object.keys(set).length === 0) {
    // Only options, or nothing, change: an UPDATE with an empty SET is invalid SQL; lock the row for the same check.
    const row = await db.selectFrom('polls').select('id').where('id', '=', id).where('start_date', '>', now).forUpdate().executeTakeFirst();
    return row !== undefined;
  }
  const result = await db.updateTable('polls').set(set).where('id', '=', id).where('start_date', '>', now).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function findOptions(db: Executor, pollId: number): Promise<{ text: string; counts: Record<string, number> }[]> {
  return db.selectFrom('poll_options').select(['text', 'counts']).where('poll_id', '=', pollId).orderBy('position').execute();
}

/** Replaces every option; each starts with zero votes for every value of the poll's type. */
export async function replaceOptions(db: Executor, pollId: number, texts: readonly string[], values: readonly number[]): Promise<void> {
  await db.deleteFrom('poll_options').where('poll_id', '=', pollId).execute();
  const counts = JSON.stringify(Object.fromEntries(values.map((v) => [String(v), 0])));
  await db.insertInto('poll_options')
    .values(texts.map((text, position) => ({ poll_id: pollId, position, text, counts })))
    .execute();
  await db.updateTable('polls').set({ votes: 0 }).where('id', '=', pollId).execute();
}

/** Users the scope admits in the region (SPEC-API poll scopes). */
export async function countEligibleVoters(db: Executor, regionId: number, scope: number): Promise<number> {
  if (scope === 3) return countRegionAmbassadors(db, regionId);
  return countRegionMembers(db, regionId, { minRole: scope === 2 ? ROLES['store-manager'] : ROLES.foodsaver, verifiedOnly: scope === 1 || scope === 4, homeRegionOnly: scope === 4 });
}
