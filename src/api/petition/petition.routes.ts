/** `GET /api/petition` (SPEC-API): public; 503 while there is nothing to show. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { getPetition } from './petition.service.ts';
import { PetitionDataSchema } from './petition.source.ts';

export interface PetitionRoutesOptions { config: Config; db: DB; clock: Clock }

export const petitionRoutes: FastifyPluginAsyncTypebox<PetitionRoutesOptions> = async (api, { config, db, clock }) => {
  api.get('/petition', {
    schema: {
      tags: ['petition'],
      operationId: 'getPetition',
      summary: 'Petition status {href, signatures, daysLeft}; cached up to 10 minutes',
      response: { 200: PetitionDataSchema, 503: ProblemSchema },
    },
  }, async (_request, reply) => {
    const data = await getPetition(db, clock, { sourceUrl: config.petitionSourceUrl, allowPrivate: config.petitionAllowPrivate });
    void reply.header('cache-control', 'public, max-age=60');
    return data;
  });
};
