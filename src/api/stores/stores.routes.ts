/** `/api/stores/...`: wall posts, pickup sign-ups, store managers (seed: REST API table). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { requireActor } from '../actor.ts';
import { EmptyObject } from '../params.ts';
import { lookupId, pathId } from '../row-id.ts';
import { parsePickupDate, signUpForPickup } from './stores.pickups.service.ts';
import { appointStoreManager } from './stores.managers.service.ts';
import { ManagerParams, PickupParams, PickupSignupSchema, StoreParams, StorePostParams, WallPostListSchema } from './stores.schemas.ts';
import { listWallPosts, removeWallPost } from './stores.wall.service.ts';

export interface StoreRoutesOptions { db: DB; clock: Clock }

const tags = ['stores'];

export const storeRoutes: FastifyPluginAsyncTypebox<StoreRoutesOptions> = async (api, { db, clock }) => {
  api.get('/stores/:storeId/posts', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'listStoreWallPosts',
      summary: 'The 50 newest wall posts of a store, newest first',
      description: 'Orga, the store\'s members and managers (not standby members) and ambassadors of the store\'s region.',
      params: StoreParams,
      response: { 200: WallPostListSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return listWallPosts(db, await requireActor(request), pathId(request.params.storeId), () => assertValidInput(request));
  });

  api.delete('/stores/:storeId/posts/:postId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'deleteStoreWallPost',
      summary: 'Remove a wall post; writes a store-log entry',
      description: 'Orga any post; the author their own; a manager of the store other people\'s posts older than one month.',
      params: StorePostParams,
      response: { 200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    const { storeId, postId } = request.params;
    await removeWallPost(db, clock, await requireActor(request), pathId(storeId), pathId(postId), () => assertValidInput(request));
    return {};
  });

  api.post('/stores/:storeId/pickups/:pickupDate/:fsId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'signUpForPickup',
      summary: 'Sign oneself up for a pickup slot; writes a store-log entry',
      description: 'The caller (fsId) must be a verified member or manager of the store. 404 when the store has no slot at exactly '
        + 'that time; 409 when the slot is in the past, full, or the caller is already signed up.',
      params: PickupParams,
      response: {
        200: PickupSignupSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema,
      },
    },
  }, async (request) => {
    assertValidParams(request);
    const pickupDate = parsePickupDate(request.params.pickupDate);
    return signUpForPickup(db, clock, await requireActor(request), {
      storeId: pathId(request.params.storeId), pickupDate, userId: lookupId(request.params.fsId),
    }, () => assertValidInput(request));
  });

  api.post('/stores/:storeId/managers/:userId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'appointStoreManager',
      summary: 'Make a user a member and manager of the store; writes a store-log entry',
      description: 'Orga, a manager of the store, or an ambassador of its region. 422 when the user does not exist, already manages '
        + 'the store, has a role below store manager, or the store has 3 managers already (orga and ambassadors may exceed that).',
      params: ManagerParams,
      response: {
        // 409 member.deleted: the user was deleted at that moment.
        200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 422: ProblemSchema,
      },
    },
  }, async (request) => {
    assertValidParams(request);
    const { storeId, userId } = request.params;
    await appointStoreManager(db, clock, await requireActor(request), pathId(storeId), pathId(userId), () => assertValidInput(request));
    return {};
  });
};
