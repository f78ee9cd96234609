/** `/api/feature-toggles` (SPEC-API): list, and switch (orga only; 403 when logged out, as the seed lists). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { requireActor } from '../actor.ts';
import { ValidationFailed } from '../plugin/problem.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { FeatureToggleParams, FeatureToggleQuery, FeatureToggleSchema } from './feature-toggles.schemas.ts';
import { listFeatureToggles, setFeatureToggle } from './feature-toggles.service.ts';

export interface FeatureToggleRoutesOptions { db: DB; clock: Clock }

/**
 * The operation takes no body, and ignores one, but not a `newState` in it: the state belongs in the query,
 * and a client that sends `{"newState": false}` would otherwise flip a toggle it meant to switch off.
 */
function assertNoStateInBody(body: unknown): void {
  if (typeof body === 'object' && body !== null && Object.hasOwn(body, 'newState')) {
    throw new ValidationFailed([{ field: 'body/newState', message: 'belongs in the query: ?newState=true or ?newState=false' }]);
  }
}

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
    return setFeatureToggle(db, clock, await requireActor(request), request.params.featureToggle, request.query.newState, () => {
      assertValidInput(request);
      assertNoStateInBody(request.body);
    });
  });
};
