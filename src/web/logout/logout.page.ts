/**
 * `GET /logout` shows a confirmation page; only `POST /logout` with the
 * form's CSRF token ends the session (SPEC §4). A GET that logged out would
 * let any site end a member's session with an image tag or a link (logout
 * CSRF), and link prefetchers would do it by accident.
 */
import type { FastifyInstance } from 'fastify';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { logOut } from '../../accounts/login.service.ts';
import { clearSessionCookies, sessionIdOf } from '../../accounts/session-http.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';

interface LogoutForm { csrf_token?: unknown }

export async function logoutPage(app: FastifyInstance, { config, db, clock }: { config: Config; db: DB; clock: Clock }): Promise<void> {
  app.get('/logout', async (request, reply) => {
    if (!(await request.getSession())) return reply.redirect('/', 303);
    return reply.render('logout', { csrfToken: await formToken(request, reply, config) });
  });

  app.post('/logout', async (request, reply) => {
    const session = await request.getSession();
    const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as LogoutForm;
    if (session && !(await isValidFormToken(request, form.csrf_token))) {
      return reply.render('logout', { csrfToken: session.csrfToken, error: reply.translator()('logout.csrf') }, 403);
    }
    // Without a session there is nobody to log out: only stale cookies to clear.
    await logOut(db, sessionIdOf(request), clock(), { log: request.events, ip: request.ip });
    clearSessionCookies(reply, config);
    return reply.redirect('/', 303);
  });
}
