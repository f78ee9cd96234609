/**
 * The community areas of `/api` (stores, quizzes, reports, region pins,
 * forum subscriptions, notification settings, content entries), registered
 * together so that app.ts names them in one place.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { contentRoutes } from './contents/contents.routes.ts';
import { forumRoutes } from './forum/forum.routes.ts';
import { notificationRoutes } from './notifications/notifications.routes.ts';
import { quizRoutes } from './quiz/quiz.routes.ts';
import { regionPinRoutes } from './region-pins/region-pins.routes.ts';
import { reportRoutes } from './reports/reports.routes.ts';
import { storeRoutes } from './stores/stores.routes.ts';

export interface CommunityRoutesOptions { db: DB; clock: Clock }

export const communityRoutes: FastifyPluginAsync<CommunityRoutesOptions> = async (api, { db, clock }) => {
  await api.register(storeRoutes, { db, clock });
  await api.register(quizRoutes, { db });
  await api.register(reportRoutes, { db });
  await api.register(regionPinRoutes, { db, clock });
  await api.register(forumRoutes, { db, clock });
  await api.register(notificationRoutes, { db, clock });
  await api.register(contentRoutes, { db, clock });
};
