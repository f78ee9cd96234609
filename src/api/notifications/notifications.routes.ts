/** `PATCH /api/notifications/regions` (seed: REST API table). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { inCheckedSessionStatement } from '../actor.ts';
import { assertPreconditions, assertValidInput, hasPreconditions } from '../plugin/validation-order.ts';
import { EmptyObject } from '../params.ts';
import { RegionNotificationSettingsBody } from './notifications.schemas.ts';
import { updateRegionNotifications, updateRegionNotificationsInSession } from './notifications.service.ts';

export interface NotificationRoutesOptions { db: DB; clock: Clock }

export const notificationRoutes: FastifyPluginAsyncTypebox<NotificationRoutesOptions> = async (api, { db, clock }) => {
  api.patch('/notifications/regions', {
    // The seed lists 200 and 403 only: logged out is a 403 here.
    config: { auth: 'required-403', sessionInStatement: true },
    attachValidation: true,
    schema: {
      tags: ['notifications'],
      operationId: 'setForumNotifications',
      summary: 'Email about new forum threads, per region or working group',
      description: 'Every id must be a region or working group the caller is a member of; otherwise 403 and nothing changes. '
        + 'All settings are updated in one transaction.',
      body: RegionNotificationSettingsBody,
      response: { 200: EmptyObject, 400: ProblemSchema, 403: ProblemSchema },
    },
  }, async (request) => {
    await inCheckedSessionStatement(request, clock,
      (session, checkSession) => updateRegionNotificationsInSession(db, session, request.body, checkSession),
      (actor) => {
        // A malformed body is a 400 before the membership check (docs/api-community.md); a precondition is
        // evaluated after that 403, before the write.
        assertValidInput(request, [], { preconditions: false });
        return updateRegionNotifications(db, clock, actor, request.body, hasPreconditions(request) ? () => assertPreconditions(request) : undefined);
      });
    return {};
  });
};
