/** Who may see and edit a poll (SPEC-API). */
import { isOrga } from '../../accounts/roles.ts';
import type { PollRow } from './polls.repository.ts';

export function mayViewPoll(user: { id: number; role: number }, poll: Pick<PollRow, 'author_id'>, isMember: boolean): boolean {
  return isOrga(user) || user.id === poll.author_id || isMember;
}

export function isAuthor(user: { id: number }, poll: Pick<PollRow, 'author_id'>): boolean {
  return user.id === poll.author_id;
}

/** The seed: "a poll can be updated only before its voting phase starts". */
export function hasStarted(poll: Pick<PollRow, 'start_date'>, now: Date): boolean {
  return poll.start_date.getTime() <= now.getTime();
}

/** The values a vote gives an option, per poll type. */
export function valuesOfType(type: number): readonly number[] {
  switch (type) {
    case 2: return [1, 0, -1];
    case 3: return [3, 2, 1, 0, -1, -2, -3];
    default: return [1];
  }
}
