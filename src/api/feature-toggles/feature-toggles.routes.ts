/** `/api/feature-toggles` (SPEC-API): list, and switch (orga only; 403 when logged out, as the seed lists). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { requireActor } from '../actor.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { FeatureToggleParams, FeatureToggleQuery, FeatureToggleSchema } from './feature-toggles.schemas.ts';
import { listFeatureToggles, setFeatureToggle } from './feature-toggles.service.ts';

export interface FeatureToggleRoutesOptions { db: DB; clock: Clock }

export const featureToggleRoutes: FastifyPluginAsyncTypebox<FeatureToggleRoutesOptions> = async (api, { db, clock }) => {
  api.get('/feature-toggles', {
    schema: {
      tags: ['feature-toggles'],
      operationId: 'listFeatureToggles',
      summary: 'Every defined feature toggle with its state',
      response: { 200: Type.Array(FeatureToggleSchema) },
    },
  }, async () => listFeatureToggles(db));

  api.patch('/feature-toggles/:featureToggle', {
    config: { auth: 'required-403' },
    attachValidation: true,
    schema: {
      tags: ['feature-toggles'],
      operationId: 'switchFeatureToggle',
      summary: 'Switch a feature toggle (orga); without newState it flips',
      params: FeatureToggleParams,
      querystring: FeatureToggleQuery,
      response: { 200: FeatureToggleSchema, 400: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return setFeatureToggle(db, clock, await requireActor(request), request.params.featureToggle, request.query.newState,
      () => assertValidInput(request));
  });
};
