/** `GET /api/push-notification/{type}/server-information` (SPEC-API). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import type { KeyMaterial } from '../../oauth/keys/key-material.ts';
import { ProblemSchema } from '../plugin/problem-schema.ts';
import { assertValidInput, assertValidParams } from '../plugin/validation-order.ts';
import { MAX_PATH_PARAM_LENGTH } from '../row-id.ts';
import { pushProblems } from './push.problems.ts';
import { loadVapidKeys } from './vapid-keys.ts';

export interface PushRoutesOptions { config: Config; keys: KeyMaterial }

const ServerInformationSchema = Type.Object({
  key: Type.String({ description: 'webpush: the VAPID public key, base64url of the 65-byte uncompressed P-256 point' }),
}, { title: 'ServerInformation' });

export const pushRoutes: FastifyPluginAsyncTypebox<PushRoutesOptions> = async (api, { config, keys }) => {
  const vapid = await loadVapidKeys(config, keys);
  const serverInformation: Readonly<Record<string, { key: string }>> = { webpush: { key: vapid.publicKey } };

  api.get('/push-notification/:type/server-information', {
    config: { auth: 'required' },
    attachValidation: true,
    schema: {
      tags: ['push-notifications'],
      operationId: 'getPushServerInformation',
      summary: 'What a client needs to subscribe to a push service; `webpush` gives the VAPID public key',
      params: Type.Object({ type: Type.String({ pattern: '^\\w+$', maxLength: MAX_PATH_PARAM_LENGTH }) }),
      response: { 200: ServerInformationSchema, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
    },
  }, async (request) => {
    assertValidParams(request);
    const info = Object.hasOwn(serverInformation, request.params.type) ? serverInformation[request.params.type] : undefined;
    if (!info) throw pushProblems.unknownType(request.params.type);
    assertValidInput(request);
    return info;
  });
};
