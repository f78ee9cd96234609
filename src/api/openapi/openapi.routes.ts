/** `GET /api/openapi.json`: the generated OpenAPI 3.1 document, and Swagger UI at `/api/doc`. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.ts';
import { installSwaggerUi } from './openapi.plugin.ts';

export interface OpenApiRoutesOptions { config: Config }

export const openApiRoutes: FastifyPluginAsyncTypebox<OpenApiRoutesOptions> = async (api, { config }) => {
  api.get('/openapi.json', {
    schema: { hide: true },
  }, async (_request, reply) => {
    return reply.header('cache-control', 'no-cache').type('application/json').send(api.swagger());
  });
  await installSwaggerUi(api, config);
};
