/** `/api/quiz/...`: a user's quiz sessions; removing one (seed: REST API table). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { requireActor } from '../actor.ts';
import { EmptyObject } from '../params.ts';
import { pathId } from '../row-id.ts';
import { FoodsaverParams, QuizOverviewSchema, QuizSessionParams } from './quiz.schemas.ts';
import { listQuizOverview, removeQuizSession } from './quiz.service.ts';

export interface QuizRoutesOptions { db: DB }

const tags = ['quiz'];

export const quizRoutes: FastifyPluginAsyncTypebox<QuizRoutesOptions> = async (api, { db }) => {
  api.get('/quiz/sessions/:foodsaverId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'listQuizSessions',
      summary: 'A user\'s quiz sessions, grouped by quiz',
      description: 'Orga, or the user themselves.',
      params: FoodsaverParams,
      response: { 200: QuizOverviewSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return listQuizOverview(db, await requireActor(request), pathId(request.params.foodsaverId), () => assertValidInput(request));
  });

  api.delete('/quiz/session/:sessionId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'deleteQuizSession',
      summary: 'Delete a quiz session',
      description: 'Orga only.',
      params: QuizSessionParams,
      response: { 200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    await removeQuizSession(db, await requireActor(request), pathId(request.params.sessionId), () => assertValidInput(request));
    return {};
  });
};
