/**
 * The sharing areas of `/api`: baskets, uploads, polls, feature toggles,
 * petition and push-notification server information. Registered inside the
 * `/api` context by buildApp.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/database.ts';
import type { KeyMaterial } from '../oauth/keys/key-material.ts';
import { basketRoutes } from './baskets/baskets.routes.ts';
import { featureToggleRoutes } from './feature-toggles/feature-toggles.routes.ts';
import { petitionRoutes } from './petition/petition.routes.ts';
import { pollRoutes } from './polls/polls.routes.ts';
import { pushRoutes } from './push/push.routes.ts';
import type { ImageWorkQueue } from './uploads/image-work-queue.ts';
import { uploadRoutes } from './uploads/uploads.routes.ts';

export interface SharingRoutesOptions { config: Config; db: DB; clock: Clock; keys: KeyMaterial; imageWork?: ImageWorkQueue | undefined }

export const sharingRoutes: FastifyPluginAsync<SharingRoutesOptions> = async (api, { config, db, clock, keys, imageWork }) => {
  await api.register(basketRoutes, { db, clock });
  await api.register(uploadRoutes, { config, db, clock, imageWork });
  await api.register(pollRoutes, { db, clock });
  await api.register(featureToggleRoutes, { db, clock });
  await api.register(petitionRoutes, { config, db, clock });
  await api.register(pushRoutes, { config, keys });
};
