/** The start page: who is logged in, or a link to the login page. */
import type { FastifyInstance } from 'fastify';

export async function homePage(app: FastifyInstance): Promise<void> {
  app.get('/', (_request, reply) => reply.render('home'));
}
