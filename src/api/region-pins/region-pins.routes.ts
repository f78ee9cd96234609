/** `/api/region/{regionId}/pin` (seed: REST API table; POST is a supporting operation of SPEC-API). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { inSessionStatement, requireActor } from '../actor.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { pathId } from '../row-id.ts';
import { RegionParams, RegionPinBody, RegionPinSchema } from './region-pins.schemas.ts';
import { readRegionPin, readRegionPinInSession, setRegionPin } from './region-pins.service.ts';

export interface RegionPinRoutesOptions { db: DB; clock: Clock }

const tags = ['regions'];

export const regionPinRoutes: FastifyPluginAsyncTypebox<RegionPinRoutesOptions> = async (api, { db, clock }) => {
  api.get('/region/:regionId/pin', {
    config: { auth: 'required', sessionInStatement: true },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'getRegionPin',
      summary: 'A region\'s pin on the map',
      params: RegionParams,
      response: { 200: RegionPinSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => inSessionStatement(request, clock,
    (session) => readRegionPinInSession(db, session, pathId(request.params.regionId)),
    (_actor, checkInput) => readRegionPin(db, pathId(request.params.regionId), checkInput)));

  api.post('/region/:regionId/pin', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags,
      operationId: 'setRegionPin',
      summary: 'Set a region\'s pin on the map',
      description: 'Orga, or an ambassador of that region. Returns the pin as stored.',
      params: RegionParams,
      body: RegionPinBody,
      response: { 200: RegionPinSchema, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    return setRegionPin(db, clock, await requireActor(request), pathId(request.params.regionId), request.body, () => assertValidInput(request));
  });
};
