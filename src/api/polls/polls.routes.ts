/** `/api/polls/{pollId}` (SPEC-API). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { requireActor } from '../actor.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { lookupId } from '../row-id.ts';
import { PollParams, PollPatchBody, PollSchema } from './polls.schemas.ts';
import { editPoll, getPoll } from './polls.service.ts';

export interface PollRoutesOptions { db: DB; clock: Clock }

export const pollRoutes: FastifyPluginAsyncTypebox<PollRoutesOptions> = async (api, { db, clock }) => {
  api.get('/polls/:pollId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: ['polls'], operationId: 'getPoll', summary: 'A poll (orga, its author, members of its region)',
      params: PollParams,
      response: { 200: PollSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return getPoll(db, await requireActor(request), lookupId(request.params.pollId), () => assertValidInput(request));
  });

  api.patch('/polls/:pollId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: ['polls'], operationId: 'editPoll', summary: 'Change a poll (its author, before voting starts)',
      params: PollParams,
      body: PollPatchBody,
      response: { 200: PollSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    const actor = await requireActor(request);
    return editPoll(db, clock, actor, lookupId(request.params.pollId), request.body ?? {}, () => assertValidInput(request));
  });
};
