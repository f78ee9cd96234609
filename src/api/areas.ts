/**
 * `/api` (SPEC-API): its context (plugin/context.ts) and every area, listed
 * here in one place. A new area is one line below; buildApp registers this
 * plugin under the `/api` prefix.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/database.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import type { LoginGuard } from '../accounts/login.service.ts';
import { basketRoutes } from './baskets/baskets.routes.ts';
import { contentRoutes } from './contents/contents.routes.ts';
import { featureToggleRoutes } from './feature-toggles/feature-toggles.routes.ts';
import { forumRoutes } from './forum/forum.routes.ts';
import { notificationRoutes } from './notifications/notifications.routes.ts';
import { openApiRoutes } from './openapi/openapi.routes.ts';
import { petitionRoutes } from './petition/petition.routes.ts';
import { installApiContext } from './plugin/context.ts';
import { ENROLMENT_PAGE, secondFactorDemand } from '../accounts/second-factor-requirement.ts';
import { pollRoutes } from './polls/polls.routes.ts';
import { pushRoutes } from './push/push.routes.ts';
import { quizRoutes } from './quiz/quiz.routes.ts';
import { regionPinRoutes } from './region-pins/region-pins.routes.ts';
import { reportRoutes } from './reports/reports.routes.ts';
import { storeRoutes } from './stores/stores.routes.ts';
import type { ImageWorkQueue } from './uploads/image-work-queue.ts';
import { uploadRoutes } from './uploads/uploads.routes.ts';
import { userRoutes } from './user/user.routes.ts';

export interface ApiOptions {
  config: Config; db: DB; clock: Clock; keys: KeyMaterial; loginGuard: LoginGuard;
  /** The queue of image work (uploads); by default one per app. */
  imageWork?: ImageWorkQueue | undefined;
}

export const apiRoutes: FastifyPluginAsync<ApiOptions> = async (api, { config, db, clock, keys, loginGuard, imageWork }) => {
  installApiContext(api, config.requireSecondFactor.length === 0 ? undefined : {
    demand: (session, sessionId) => secondFactorDemand(db, config.requireSecondFactor, session, sessionId, clock()),
    page: `${config.publicUrl}${ENROLMENT_PAGE}`, login: `${config.publicUrl}/login`,
  });
  await api.register(userRoutes, { config, db, clock, loginGuard });
  await api.register(storeRoutes, { db, clock });
  await api.register(quizRoutes, { db });
  await api.register(reportRoutes, { db });
  await api.register(regionPinRoutes, { db, clock });
  await api.register(forumRoutes, { db, clock });
  await api.register(notificationRoutes, { db, clock });
  await api.register(contentRoutes, { db, clock });
  await api.register(basketRoutes, { db, clock });
  await api.register(uploadRoutes, { config, db, clock, imageWork });
  await api.register(pollRoutes, { db, clock });
  await api.register(featureToggleRoutes, { db, clock });
  await api.register(petitionRoutes, { config, db, clock });
  await api.register(pushRoutes, { config, keys });
  await api.register(openApiRoutes, { config });
};
