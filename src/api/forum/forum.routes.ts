/** `/api/regions/{regionId}/forum/subscriptions` (seed: REST API table; GET is a supporting operation). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { requireActor } from '../actor.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { EmptyObject } from '../params.ts';
import { pathId } from '../row-id.ts';
import { FollowQuery, ForumRegionParams, ForumSubscriptionSchema } from './forum.schemas.ts';
import { followForum, readForumSubscription } from './forum.service.ts';

export interface ForumRoutesOptions { db: DB; clock: Clock }

const tags = ['forum'];

export const forumRoutes: FastifyPluginAsyncTypebox<ForumRoutesOptions> = async (api, { db, clock }) => {
  api.put('/regions/:regionId/forum/subscriptions', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'setForumSubscription',
      summary: 'Follow or unfollow a region\'s forum (an email about every new thread)',
      description: 'Members of the region or working group, and orga. The same setting as notifyByEmailAboutNewThreads of PATCH /api/notifications/regions.',
      params: ForumRegionParams,
      querystring: FollowQuery,
      response: { 200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    await followForum(db, clock, await requireActor(request), pathId(request.params.regionId), request.query.isFollowing, () => assertValidInput(request));
    return {};
  });

  api.get('/regions/:regionId/forum/subscriptions', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'getForumSubscription',
      summary: 'Whether the caller follows a region\'s forum',
      params: ForumRegionParams,
      response: { 200: ForumSubscriptionSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return readForumSubscription(db, await requireActor(request), pathId(request.params.regionId), () => assertValidInput(request));
  });
};
