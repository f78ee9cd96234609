/** `GET /api/openapi.json`: the generated OpenAPI 3.1 document. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

export const openApiRoutes: FastifyPluginAsyncTypebox = async (api) => {
  api.get('/openapi.json', {
    schema: { hide: true },
  }, async (_request, reply) => {
    return reply.header('cache-control', 'no-cache').type('application/json').send(api.swagger());
  });
};
