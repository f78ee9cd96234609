/** The seed's poll object and its update body. */
import { Type, type Static } from '@sinclair/typebox';
import { NAME_PATTERN } from '../../text/control-characters.ts';
import { NO_NUL_PATTERN } from '../row-id.ts';
import { IdParam } from '../params.ts';

export const PollSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  startDate: Type.String({ format: 'date-time' }),
  endDate: Type.String({ format: 'date-time' }),
  regionId: Type.Integer(),
  scope: Type.Integer({ enum: [0, 1, 2, 3, 4], description: '0 all foodsavers of the region, 1 verified, 2 store managers, 3 ambassadors, 4 verified with this home region' }),
  type: Type.Integer({ enum: [0, 1, 2, 3], description: '0 single choice, 1 multiple choice, 2 thumbs (+1/0/-1), 3 score (-3…+3)' }),
  authorId: Type.Integer(),
  creationDate: Type.String({ format: 'date-time' }),
  numValues: Type.Integer({ enum: [1, 3, 7], description: 'values a voter gives per option: 1 for choices, 3 for thumbs, 7 for scores' }),
  votes: Type.Integer({ description: 'users who voted' }),
  eligibleVotesCount: Type.Integer({ description: 'users allowed to vote, counted when the poll was created' }),
  shuffleOptions: Type.Boolean(),
}, { title: 'Poll' });
export type Poll = Static<typeof PollSchema>;

export const PollPatchBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NAME_PATTERN, description: 'no control characters or bidirectional overrides' })),
  description: Type.Optional(Type.String({ minLength: 1, maxLength: 10000, pattern: NO_NUL_PATTERN })),
  options: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 500, pattern: NO_NUL_PATTERN }), {
    minItems: 1, maxItems: 100, description: 'replaces every option and resets their counts; trimmed, unique',
  })),
  shuffleOptions: Type.Optional(Type.Boolean()),
}, { additionalProperties: false, description: 'scope, type and dates never change; other fields are ignored' });
export type PollPatch = Static<typeof PollPatchBody>;

export const PollParams = Type.Object({ pollId: IdParam('poll id') });
