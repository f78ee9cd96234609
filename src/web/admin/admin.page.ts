/**
 * The OAuth client admin screen `/admin/oauthclients` (SPEC §5.7), orga only:
 * create (secret shown once), edit; the list is in admin-list.ts, delete and
 * regenerate-secret are in admin-actions.ts. Every form carries a CSRF token and is answered with a
 * message per field; successful changes redirect (POST-redirect-GET), except
 * where a secret must be shown once: that page is the POST's own response.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isValidFormToken } from '../../accounts/csrf.ts';
import { noteAccessDenied } from '../access-denied.ts';
import { ClientChangedMeanwhile, ClientNotFound, InvalidClientInput } from '../../oauth/clients/client-errors.ts';
import { ClientIdParams } from '../../oauth/clients/client-id.ts';
import { createClient, findClient, findClientWithVersion, updateClient } from '../../oauth/clients/clients.service.ts';
import { withActor } from '../../ops/security-events.ts';
import { pageSession } from '../page-access.ts';
import { adminActionRoutes } from './admin-actions.ts';
import { adminListRoute } from './admin-list.ts';
import { checkClientForm, ClientForm, describeServiceErrors, EMPTY_FORM, formValuesOf, postedVersion, readClientForm, toClientInput, type ClientFormValues, type FieldMessages } from './admin-form.ts';
import { ADMIN_BASE, renderClientForm, renderNotFound, renderSecret, type AdminPageOptions, type FormPage } from './admin-view.ts';

export const adminPage: FastifyPluginAsyncTypebox<AdminPageOptions> = async (app, options) => {
  const { config, db, clock, keys } = options;
  const deps = { db, config };
  const access = { orgaOnly: true, returnTo: ADMIN_BASE };

  app.get(`${ADMIN_BASE}/new`, async (request, reply) => {
    if (!(await pageSession(request, reply, access))) return reply;
    return renderClientForm(request, reply, deps, { mode: 'create', values: EMPTY_FORM });
  });

  app.post(ADMIN_BASE, { schema: { body: ClientForm } }, async (request, reply) => {
    const session = await pageSession(request, reply, access);
    if (!session) return reply;
    const t = reply.translator();
    const values = readClientForm(request.body);
    const again = (status: number, page: { errors?: FieldMessages; formError?: string }) =>
      renderClientForm(request, reply, deps, { mode: 'create', values, ...page }, status);
    if (!(await isValidFormToken(request, request.body.csrf_token))) {
      noteAccessDenied(request, { userId: session.user.id, reason: 'csrf' });
      return again(403, { formError: t('admin.csrf') });
    }
    const errors = checkClientForm(values, t, { checkClientId: true });
    if (Object.keys(errors).length > 0) return again(400, { errors, formError: t('admin.invalid') });
    try {
      const { clientId, secret } = await createClient(db, keys, toClientInput(values), undefined, withActor(request.events, session.user.id));
      const client = { clientId, name: values.name.trim() };
      if (secret === null) return reply.redirect(`${ADMIN_BASE}?created=${encodeURIComponent(clientId)}`, 303);
      return renderSecret(reply, client, secret, t('admin.created', { name: client.name }));
    } catch (error) {
      if (!(error instanceof InvalidClientInput)) throw error;
      return again(400, { errors: describeServiceErrors(error.errors ?? [], t), formError: t('admin.invalid') });
    }
  });

  app.get(`${ADMIN_BASE}/:clientId/edit`, { schema: { params: ClientIdParams } }, async (request, reply) => {
    if (!(await pageSession(request, reply, access))) return reply;
    const found = await findClientWithVersion(db, request.params.clientId);
    if (!found) return renderNotFound(reply);
    const { client, version } = found;
    return renderClientForm(request, reply, deps, { mode: 'edit', values: formValuesOf(client), version, storedName: client.name, storedConfidential: client.confidential });
  });

  app.post(`${ADMIN_BASE}/:clientId`, { schema: { params: ClientIdParams, body: ClientForm } }, async (request, reply) => {
    const session = await pageSession(request, reply, access);
    if (!session) return reply;
    const t = reply.translator();
    const client = await findClient(db, request.params.clientId);
    if (!client) return renderNotFound(reply);
    const values: ClientFormValues = { ...readClientForm(request.body), clientId: client.clientId };
    // Kept as posted through a correction, so that a change made meanwhile by someone else is still not overwritten.
    const version = postedVersion(request.body);
    const again = (status: number, page: Pick<FormPage, 'errors' | 'formError' | 'formLink'>) =>
      renderClientForm(request, reply, deps, { mode: 'edit', values, version, storedName: client.name, storedConfidential: client.confidential, ...page }, status);
    if (!(await isValidFormToken(request, request.body.csrf_token))) {
      noteAccessDenied(request, { userId: session.user.id, reason: 'csrf' });
      return again(403, { formError: t('admin.csrf') });
    }
    const errors = checkClientForm(values, t, { checkClientId: false });
    if (Object.keys(errors).length > 0) return again(400, { errors, formError: t('admin.invalid') });
    try {
      const { secret, changed } = await updateClient(db, keys, client.clientId, toClientInput(values), clock(), withActor(request.events, session.user.id), { version });
      const saved = { clientId: client.clientId, name: values.name.trim() };
      // A public client made confidential gets its first secret: shown once, here.
      if (secret !== null) return renderSecret(reply, saved, secret, t('admin.updated', { name: saved.name }));
      return reply.redirect(`${ADMIN_BASE}?${changed ? 'updated' : 'unchanged'}=${encodeURIComponent(client.clientId)}`, 303);
    } catch (error) {
      if (error instanceof ClientNotFound) return renderNotFound(reply);
      if (error instanceof ClientChangedMeanwhile) {
        return again(409, { formError: t('admin.changedMeanwhile'), formLink: { href: `${ADMIN_BASE}/${encodeURIComponent(client.clientId)}/edit`, text: t('admin.openCurrent') } });
      }
      if (!(error instanceof InvalidClientInput)) throw error;
      return again(400, { errors: describeServiceErrors(error.errors ?? [], t), formError: t('admin.invalid') });
    }
  });

  await app.register(adminListRoute, options);
  await app.register(adminActionRoutes, options);
};
