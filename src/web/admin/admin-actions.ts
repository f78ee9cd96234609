/**
 * The two irreversible actions of the admin screen (SPEC §5.7), each behind a
 * confirmation page: deleting a client (its tokens stop working at once) and
 * regenerating its secret (the old one stops working; the new one is shown once).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formToken, isValidFormToken } from '../../accounts/csrf.ts';
import { noteAccessDenied } from '../access-denied.ts';
import { ClientChangedMeanwhile, ClientNotFound } from '../../oauth/clients/client-errors.ts';
import { ClientIdParams } from '../../oauth/clients/client-id.ts';
import { deleteClient, findClientWithVersion, regenerateClientSecret, type Client } from '../../oauth/clients/clients.service.ts';
import { withActor } from '../../ops/security-events.ts';
import { pageSession } from '../page-access.ts';
import { postedVersion } from './admin-form.ts';
import { ADMIN_BASE, renderNotFound, renderSecret, type AdminPageOptions } from './admin-view.ts';

const ConfirmForm = Type.Object({ csrf_token: Type.Optional(Type.String({ maxLength: 200 })), version: Type.Optional(Type.String({ maxLength: 20 })) });

type Action = 'delete' | 'regenerate';
type Found = { client: Client; version: number };

export const adminActionRoutes: FastifyPluginAsyncTypebox<AdminPageOptions> = async (app, { config, db, clock, keys }) => {
  const access = { orgaOnly: true, returnTo: ADMIN_BASE };

  /**
   * The confirmation; a new secret's carries the version of the client it was opened on, so that a second
   * operator's new secret meanwhile is not replaced by one whose page showed the first (two secrets shown, one dead).
   */
  const confirmPage = async (request: FastifyRequest, reply: FastifyReply, found: Found, action: Action, error?: string, status = 403) => {
    const { client, version } = found;
    const t = reply.translator();
    const path = action === 'delete' ? 'delete' : 'secret';
    return reply.render('admin-confirm', {
      heading: t(`admin.${action}Title`, { name: client.name }),
      text: t(`admin.${action}Text`),
      confirm: t(`admin.${action}Confirm`),
      action: `${ADMIN_BASE}/${encodeURIComponent(client.clientId)}/${path}`,
      csrfToken: await formToken(request, reply, config),
      version: action === 'regenerate' ? version : undefined,
      error,
    }, error ? status : 200);
  };

  /** The client when it exists (and, for a new secret, is confidential); otherwise the 404 page. */
  const clientFor = async (reply: FastifyReply, clientId: string, action: Action): Promise<Found | undefined> => {
    const found = await findClientWithVersion(db, clientId);
    if (!found || (action === 'regenerate' && !found.client.confidential)) {
      await renderNotFound(reply);
      return undefined;
    }
    return found;
  };

  for (const [path, action] of [['delete', 'delete'], ['secret', 'regenerate']] as const) {
    app.get(`${ADMIN_BASE}/:clientId/${path}`, { schema: { params: ClientIdParams } }, async (request, reply) => {
      if (!(await pageSession(request, reply, access))) return reply;
      const found = await clientFor(reply, request.params.clientId, action);
      return found ? confirmPage(request, reply, found, action) : reply;
    });

    app.post(`${ADMIN_BASE}/:clientId/${path}`, { schema: { params: ClientIdParams, body: ConfirmForm } }, async (request, reply) => {
      const session = await pageSession(request, reply, access);
      if (!session) return reply;
      const events = withActor(request.events, session.user.id);
      const found = await clientFor(reply, request.params.clientId, action);
      if (!found) return reply;
      const { client } = found;
      if (!(await isValidFormToken(request, request.body.csrf_token))) {
        noteAccessDenied(request, { userId: session.user.id, reason: 'csrf' });
        return confirmPage(request, reply, found, action, reply.translator()('admin.csrf'));
      }
      try {
        if (action === 'delete') {
          await deleteClient(db, client.clientId, events);
          return reply.redirect(`${ADMIN_BASE}?deleted=${encodeURIComponent(client.clientId)}`, 303);
        }
        const seen = { version: postedVersion(request.body) };
        return renderSecret(reply, client, await regenerateClientSecret(db, keys, client.clientId, clock(), events, seen));
      } catch (error) {
        // Deleted by someone else between the look-up and the change.
        if (error instanceof ClientNotFound) return renderNotFound(reply);
        // Changed by someone else meanwhile (a second new secret at once): no secret shown that would not work.
        // The page again, with the version as it is now: confirming it once more makes a new secret.
        if (error instanceof ClientChangedMeanwhile) {
          const current = await findClientWithVersion(db, client.clientId);
          if (!current) return renderNotFound(reply);
          return confirmPage(request, reply, current, action, reply.translator()('admin.changedMeanwhile'), 409);
        }
        throw error;
      }
    });
  }
};
