/**
 * The start page `/`, where a member lands after a login that no app asked
 * for: their apps (how many hold a live grant), the account's security (live
 * sessions, second factor on or off) and, for organisation members, the
 * admin screens. Logged out: a link to the login page.
 */
import type { FastifyPluginAsync } from 'fastify';
import { isOrga } from '../../accounts/roles.ts';
import { isSecondFactorEnabled } from '../../accounts/second-factor-status.ts';
import { countSessionsOfUser } from '../../accounts/session-list.ts';
import type { Clock } from '../../clock.ts';
import type { DB } from '../../db/database.ts';
import { countAppsWithLiveGrants } from '../../oauth/consent/app-access.repository.ts';

export interface HomePageOptions {
  db: DB;
  clock: Clock;
}

/** The admin screens an organisation member reaches from the start page: [path, label key]. */
const ADMIN_LINKS = [
  ['/admin/oauthclients', 'home.admin.clients'],
  ['/admin/audit', 'home.admin.audit'],
  ['/admin/users', 'home.admin.members'],
] as const;

export const homePage: FastifyPluginAsync<HomePageOptions> = async (app, { db, clock }) => {
  app.get('/', async (request, reply) => {
    const session = await request.getSession();
    if (!session) return reply.render('home');
    const { id } = session.user;
    const now = clock();
    return reply.render('home', {
      apps: await countAppsWithLiveGrants(db, id, now),
      sessions: await countSessionsOfUser(db, id, now),
      secondFactor: await isSecondFactorEnabled(db, id),
      adminLinks: isOrga(session.user) ? ADMIN_LINKS : [],
    });
  });
};
