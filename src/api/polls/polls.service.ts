/**
 * Polls (SPEC-API `PATCH /api/polls/{pollId}`): the author may change name,
 * description, options and shuffling until voting starts. New options replace
 * all old ones with zero counts; scope, type and dates never change.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { isRegionMember } from '../../accounts/region-access.ts';
import type { Actor } from '../actor.ts';
import { ValidationFailed, type FieldError } from '../plugin/problem.ts';
import { hasStarted, isAuthor, mayViewPoll, valuesOfType } from './polls.policy.ts';
import { pollProblems } from './polls.problems.ts';
import {
  countEligibleVoters, findPoll, insertPoll, replaceOptions, updatePollTexts,
  type NewPoll, type PollRow,
} from './polls.repository.ts';
import type { Poll, PollPatch } from './polls.schemas.ts';

/** 404 → 403 → `checkInput()` (the query). */
export async function getPoll(db: Executor, actor: Actor, pollId: number, checkInput: () => void): Promise<Poll> {
  const poll = await findExistingPoll(db, pollId);
  if (!mayViewPoll(actor, poll, await isRegionMember(db, actor.id, poll.region_id))) {
    throw pollProblems.mayNotView();
  }
  checkInput();
  return toPoll(poll);
}

/** 404 → 403 (not the author, or voting started) → `checkInput()` → 400 option rules. */
export async function editPoll(db: DB, clock: Clock, actor: Actor, pollId: number, patch: PollPatch, checkInput: () => void): Promise<Poll> {
  const poll = await findExistingPoll(db, pollId);
  if (!isAuthor(actor, poll)) throw pollProblems.notAuthor();
  if (hasStarted(poll, clock())) throw pollProblems.started();
  checkInput();
  const name = patch.name?.trim();
  const description = patch.description?.trim();
  const options = patch.options?.map((o) => o.trim());
  // Every refused field in one answer (SPEC-API: one entry per offending field).
  const errors = [...emptyTextErrors({ name, description }), ...(options === undefined ? [] : optionErrors(options))];
  if (errors.length > 0) throw new ValidationFailed(errors);
  const changes = {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    ...(patch.shuffleOptions === undefined ? {} : { shuffleOptions: patch.shuffleOptions }),
  };
  await db.transaction().execute(async (trx) => {
    if (!(await updatePollTexts(trx, poll.id, changes, clock()))) throw pollProblems.started();
    if (options) await replaceOptions(trx, poll.id, options, valuesOfType(poll.type));
  });
  return toPoll((await findPoll(db, poll.id))!);
}

/** Creates a poll with its options; the eligible voters are counted now. */
export async function createPoll(db: DB, clock: Clock, poll: Omit<NewPoll, 'eligibleVotesCount'>, options: readonly string[]): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const eligibleVotesCount = await countEligibleVoters(trx, poll.regionId, poll.scope);
    const id = await insertPoll(trx, { ...poll, eligibleVotesCount }, clock());
    await replaceOptions(trx, id, cleanOptions(options), valuesOfType(poll.type));
    return id;
  });
}

function cleanOptions(options: readonly string[]): string[] {
  const trimmed = options.map((o) => o.trim());
  const errors = optionErrors(trimmed);
  if (errors.length > 0) throw new ValidationFailed(errors);
  return trimmed;
}

function optionErrors(trimmed: readonly string[]): FieldError[] {
  const errors = trimmed.flatMap((text, index) => text === '' ? [{ field: `body/options/${index}`, message: 'must not be empty' }]
    : trimmed.indexOf(text) !== index ? [{ field: `body/options/${index}`, message: 'repeats an earlier option' }] : []);
  if (trimmed.length === 0) errors.push({ field: 'body/options', message: 'must name at least one option' });
  return errors;
}

/** Given texts (already trimmed) that are empty. */
function emptyTextErrors(texts: Readonly<Record<string, string | undefined>>): FieldError[] {
  return Object.entries(texts).flatMap(([field, text]) => text === '' ? [{ field: `body/${field}`, message: 'must not be empty' }] : []);
}

async function findExistingPoll(db: Executor, pollId: number): Promise<PollRow> {
  const poll = await findPoll(db, pollId);
  if (!poll) throw pollProblems.notFound();
  return poll;
}

function toPoll(row: PollRow): Poll {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    startDate: row.start_date.toISOString(),
    endDate: row.end_date.toISOString(),
    regionId: row.region_id,
    scope: row.scope,
    type: row.type,
    authorId: row.author_id,
    creationDate: row.creation_date.toISOString(),
    numValues: valuesOfType(row.type).length,
    votes: row.votes,
    eligibleVotesCount: row.eligible_votes_count,
    shuffleOptions: row.shuffle_options,
  };
}
