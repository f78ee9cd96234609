/** `/api/baskets` (SPEC-API): food baskets and requests for them. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { requireActor } from '../actor.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { withHeaders } from '../plugin/response-headers.ts';
import { assertPreconditions, assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { lookupId } from '../row-id.ts';
import { BasketCreateBody, BasketParams, BasketPatchBody, BasketSchema, WithdrawParams } from './baskets.schemas.ts';
import { createBasket, editBasket, getBasket, requestBasket, withdrawRequest } from './baskets.service.ts';

export interface BasketRoutesOptions { db: DB; clock: Clock }

const TAGS = ['baskets'];
const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema };

export const basketRoutes: FastifyPluginAsyncTypebox<BasketRoutesOptions> = async (api, { db, clock }) => {
  api.post('/baskets', {
    config: { auth: 'required' },
    schema: {
      tags: TAGS, operationId: 'createBasket', summary: 'Offer a basket; it expires lifeTimeInDays from now',
      body: BasketCreateBody,
      response: {
        201: withHeaders(BasketSchema, { Location: { type: 'string', format: 'uri-reference', description: 'the new basket: /api/baskets/{basketId}' } }, 'the new basket'),
        // 409 member.deleted: the caller was deleted at that moment.
        400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 409: ProblemSchema,
      },
    },
  }, async (request, reply) => {
    const actor = await requireActor(request);
    assertPreconditions(request);
    const basket = await createBasket(db, clock, actor, request.body);
    return reply.code(201).header('location', `/api/baskets/${basket.id}`).send(basket);
  });

  api.get('/baskets/:basketId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: TAGS, operationId: 'getBasket', summary: 'A basket (deleted ones: 404)',
      params: BasketParams,
      response: { 200: BasketSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return getBasket(db, lookupId(request.params.basketId), () => assertValidInput(request));
  });

  api.patch('/baskets/:basketId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: TAGS, operationId: 'editBasket', summary: 'Edit a basket (its creator, while active and unexpired); until does not move',
      params: BasketParams,
      body: BasketPatchBody,
      response: { 200: BasketSchema, ...errors },
    },
  }, async (request) => {
    assertValidParams(request);
    const actor = await requireActor(request);
    return editBasket(db, clock, actor, lookupId(request.params.basketId), request.body ?? {}, () => assertValidInput(request));
  });

  api.post('/baskets/:basketId/request', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: TAGS, operationId: 'requestBasket', summary: 'Request a basket',
      params: BasketParams,
      response: { 200: BasketSchema, ...errors, 409: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return requestBasket(db, clock, await requireActor(request), lookupId(request.params.basketId), () => assertValidInput(request));
  });

  api.post('/baskets/:basketId/withdraw', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: TAGS, operationId: 'withdrawBasketRequest', summary: 'Withdraw the caller\'s open request for a basket (request status 5)',
      params: WithdrawParams,
      response: { 200: BasketSchema, ...errors },
    },
  }, async (request) => {
    assertValidParams(request);
    return withdrawRequest(db, clock, await requireActor(request), lookupId(request.params.basketId), () => assertValidInput(request));
  });
};
