/**
 * Polls (SPEC-API `PATCH /api/polls/{pollId}`): the author may change name,
 * description, options and shuffling until voting starts. New options replace
 * all old ones with zero counts; scope, type and dates never change.
 */
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';
import { ApiProblem, ValidationFailed } from '../plugin/problem.ts';
import { toRowId } from '../row-id.ts';
import { hasStarted, isAuthor, mayViewPoll, valuesOfType } from './polls.policy.ts';
import {
  countEligibleVoters, findPoll, insertPoll, isRegionMember, replaceOptions, updatePollTexts,
  type NewPoll, type PollRow,
} from './polls.repository.ts';
import type { Poll, PollPatch } from './polls.schemas.ts';

interface Caller { id: number; role: number }

export async function getPoll(db: Executor, caller: Caller, pollId: string): Promise<Poll> {
  const poll = await findExistingPoll(db, pollId);
  if (!mayViewPoll(caller, poll, await isRegionMember(db, caller.id, poll.region_id))) {
    throw new ApiProblem(403, 'poll.forbidden', 'You may not see this poll.');
  }
  return toPoll(poll);
}

/** 404 → 403 (not the author, or voting started) → `checkInput()` → 400 option rules. */
export async function editPoll(db: DB, clock: Clock, caller: Caller, pollId: string, patch: PollPatch, checkInput: () => void): Promise<Poll> {
  const poll = await findExistingPoll(db, pollId);
  if (!isAuthor(caller, poll)) throw new ApiProblem(403, 'poll.forbidden', 'Only the author may edit this poll.');
  if (hasStarted(poll, clock())) throw startedProblem();
  checkInput();
  const changes = {
    ...(patch.name === undefined ? {} : { name: requireText(patch.name, 'name') }),
    ...(patch.description === undefined ? {} : { description: requireText(patch.description, 'description') }),
    ...(patch.shuffleOptions === undefined ? {} : { shuffleOptions: patch.shuffleOptions }),
  };
  const options = patch.options === undefined ? undefined : cleanOptions(patch.options);
  await db.transaction().execute(async (trx) => {
    if (!(await updatePollTexts(trx, poll.id, changes, clock()))) throw startedProblem();
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
  const errors = trimmed.flatMap((text, index) => text === '' ? [{ field: `body/options/${index}`, message: 'must not be empty' }]
    : trimmed.indexOf(text) !== index ? [{ field: `body/options/${index}`, message: 'repeats an earlier option' }] : []);
  if (trimmed.length === 0) errors.push({ field: 'body/options', message: 'must name at least one option' });
  if (errors.length > 0) throw new ValidationFailed(errors);
  return trimmed;
}

function requireText(value: string, field: string): string {
  const text = value.trim();
  if (text === '') throw new ValidationFailed([{ field: `body/${field}`, message: 'must not be empty' }]);
  return text;
}

async function findExistingPoll(db: Executor, pollId: string): Promise<PollRow> {
  const id = toRowId(pollId);
  const poll = id === null ? undefined : await findPoll(db, id);
  if (!poll) throw new ApiProblem(404, 'poll.not-found', 'There is no such poll.');
  return poll;
}

function startedProblem(): ApiProblem {
  return new ApiProblem(403, 'poll.started', 'Voting has started: the poll can no longer be changed.');
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
