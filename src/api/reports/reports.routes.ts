/** `DELETE /api/report/{reportId}` (seed: REST API table). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { requireActor } from '../actor.ts';
import { EmptyObject, IdParam } from '../params.ts';
import { pathId } from '../row-id.ts';
import { removeReport } from './reports.service.ts';

export interface ReportRoutesOptions { db: DB }

export const reportRoutes: FastifyPluginAsyncTypebox<ReportRoutesOptions> = async (api, { db }) => {
  api.delete('/report/:reportId', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: ['reports'],
      operationId: 'deleteReport',
      summary: 'Delete a report',
      description: 'Orga, except the user the report is about.',
      params: Type.Object({ reportId: IdParam('report id') }),
      response: { 200: EmptyObject, 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    await removeReport(db, await requireActor(request), pathId(request.params.reportId), () => assertValidInput(request));
    return {};
  });
};
