/**
 * `/settings/apps` (SPEC §5.6): every app with access to the member's data
 * (remembered consent or a live grant), and revoking one, which forgets the
 * consent and revokes its refresh and access tokens.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { CLIENT_ID_PATTERN } from '../../oauth/clients/client-id.ts';
import { findClient } from '../../oauth/clients/clients.service.ts';
import { listAppsWithAccess, revokeAppAccess } from '../../oauth/consent/app-access.repository.ts';
import { pageSession } from '../page-access.ts';
import { localeOf } from '../language/locale.ts';
import { logSecurityEvent } from '../../ops/security-events.ts';

export interface MyAppsOptions {
  config: Config;
  db: DB;
  clock: Clock;
}

const PAGE = '/settings/apps';

const RevokeForm = Type.Object({
  client_id: Type.Optional(Type.String({ maxLength: 200 })),
  csrf_token: Type.Optional(Type.String({ maxLength: 200 })),
});

export const myAppsPage: FastifyPluginAsyncTypebox<MyAppsOptions> = async (app, { config, db, clock }) => {
  app.get(PAGE, {
    schema: { querystring: Type.Object({ revoked: Type.Optional(Type.String({ maxLength: 200 })) }) },
  }, async (request, reply) => {
    const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
    if (!session) return reply;
    const apps = await listAppsWithAccess(db, session.user.id, clock());
    const revoked = request.query.revoked === undefined ? undefined : await findClient(db, request.query.revoked);
    return reply.render('my-apps', {
      apps,
      revokedName: revoked?.name,
      csrfToken: await formToken(request, reply, config),
      dateFormat: new Intl.DateTimeFormat(localeOf(request) === 'en' ? 'en-GB' : 'de-DE', { dateStyle: 'long', timeZone: 'Europe/Berlin' }),
    });
  });

  app.post(`${PAGE}/revoke`, { schema: { body: RevokeForm } }, async (request, reply) => {
    const session = await pageSession(request, reply, { orgaOnly: false, returnTo: PAGE });
    if (!session) return reply;
    const t = reply.translator();
    if (!(await isValidFormToken(request, request.body.csrf_token))) {
      return reply.render('error', { message: t('myapps.csrf'), link: { href: PAGE, text: t('myapps.title') } }, 403);
    }
    const clientId = request.body.client_id ?? '';
    // Only ids that could be registered reach the database (a NUL byte would make PostgreSQL fail).
    const revoked = CLIENT_ID_PATTERN.test(clientId) && await revokeAppAccess(db, clock, session.user.id, clientId);
    if (!revoked) return reply.render('error', { message: t('myapps.unknown'), link: { href: PAGE, text: t('myapps.title') } }, 404);
    logSecurityEvent(request.events, { event: 'oauth.consent.revoked', userId: session.user.id, clientId });
    return reply.redirect(`${PAGE}?revoked=${encodeURIComponent(clientId)}`, 303);
  });
};
