/** Liveness and readiness probes for load balancers and orchestrators. */
import type { FastifyPluginAsync } from 'fastify';
import { markJsonRoutes } from '../http/security-headers.ts';

export const healthRoutes: FastifyPluginAsync<{ ping: () => Promise<void> }> = async (app, { ping }) => {
  markJsonRoutes(app);
  app.get('/health', async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });

  app.get('/ready', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    try {
      await ping();
      return reply.send({ status: 'ready' });
    } catch (error) {
      request.log.warn({ err: error }, 'database not reachable');
      return reply.code(503).send({ status: 'unavailable', detail: 'database not reachable' });
    }
  });
};
