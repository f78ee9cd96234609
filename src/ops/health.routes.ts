/** Liveness and readiness probes for load balancers and orchestrators. */
import type { FastifyPluginAsync } from 'fastify';
import { markJsonRoutes } from '../http/security-headers.ts';

/** A part the instance cannot serve without; `/ready` names those that do not answer. */
export interface ReadinessCheck {
  readonly name: 'database' | 'redis';
  ping(): Promise<void>;
}

export const healthRoutes: FastifyPluginAsync<{ checks: readonly ReadinessCheck[] }> = async (app, { checks }) => {
  markJsonRoutes(app);
  app.get('/health', async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });

  // Every part is asked at once: a Redis outage is reported as Redis, not as the database.
  app.get('/ready', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    const results = await Promise.allSettled(checks.map((check) => check.ping()));
    const down = checks.filter((check, i) => {
      const result = results[i]!;
      if (result.status === 'rejected') request.log.warn({ err: result.reason, part: check.name }, `${check.name} not reachable`);
      return result.status === 'rejected';
    }).map((check) => check.name);
    if (down.length === 0) return reply.send({ status: 'ready' });
    return reply.code(503).send({ status: 'unavailable', detail: `${down.join(' and ')} not reachable`, down });
  });
};
