/** What the admin pages share: their options, the regions to choose from, the form page. */
import { TOKEN_ENDPOINT_AUTH_METHODS } from '../../oauth/clients/auth-methods.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formToken } from '../../accounts/csrf.ts';
import { listRegions } from '../../accounts/regions.repository.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { SIGNING_ALGS } from '../../oauth/jose/algorithms.ts';
import type { KeyMaterial } from '../../oauth/keys/key-material.ts';
import { GRANT_TYPES, SCOPES } from '../../oauth/scopes.ts';
import { FieldMarks, labelsFrom } from '../form-marks.ts';
import type { ClientFormValues, FieldMessages } from './admin-form.ts';

export const ADMIN_BASE = '/admin/oauthclients';

export interface AdminPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
  keys: KeyMaterial;
}

/** Every region with its parents ("Deutschland › Berlin › Berlin-Kreuzberg"), sorted by that label. */
export async function regionChoices(db: DB): Promise<{ id: number; label: string }[]> {
  const regions = await listRegions(db);
  const byId = new Map(regions.map((r) => [r.id, r]));
  const label = (id: number): string => {
    const names: string[] = [];
    const seen = new Set<number>();
    for (let r = byId.get(id); r && !seen.has(r.id); r = r.parent_id === null ? undefined : byId.get(r.parent_id)) {
      seen.add(r.id);
      names.unshift(r.name);
    }
    return names.join(' › ');
  };
  return regions.map((r) => ({ id: r.id, label: label(r.id) })).sort((a, b) => a.label.localeCompare(b.label, 'de'));
}

/** The client form's fields in reading order: the error summary lists them so; any other field follows. */
const CLIENT_FORM_FIELDS: readonly string[] = [
  'clientId', 'name', 'confidential', 'redirectUris', 'postLogoutRedirectUris', 'backchannelLogoutUri', 'backchannelLogoutSessionRequired',
  'requirePushedAuthorizationRequests', 'scopes', 'grantTypes', 'requiredRegions', 'idTokenSignedResponseAlg',
];

export interface FormPage {
  mode: 'create' | 'edit';
  /** The name as stored, for the heading while an edit is being corrected. */
  storedName?: string;
  /** Whether the stored client has a secret (offers "regenerate"). */
  storedConfidential?: boolean;
  values: ClientFormValues;
  /** The edit form's: the version of the settings it was opened with, carried back on save. */
  version?: number;
  errors?: FieldMessages;
  formError?: string;
  /** A way on from the form's error, shown under it. */
  formLink?: { href: string; text: string };
}

export async function renderClientForm(request: FastifyRequest, reply: FastifyReply, deps: { db: DB; config: Config }, page: FormPage, status = 200): Promise<FastifyReply> {
  const t = reply.translator();
  const edit = page.mode === 'edit';
  return reply.render('admin-client-form', {
    ...page,
    marks: new FieldMarks(page.errors, labelsFrom(t, 'admin.'), CLIENT_FORM_FIELDS),
    heading: edit ? t('admin.editTitle', { name: page.storedName ?? page.values.name }) : t('admin.newTitle'),
    action: edit ? `${ADMIN_BASE}/${encodeURIComponent(page.values.clientId)}` : ADMIN_BASE,
    csrfToken: await formToken(request, reply, deps.config),
    regions: await regionChoices(deps.db),
    scopes: SCOPES,
    grantTypes: GRANT_TYPES,
    signingAlgs: SIGNING_ALGS,
    authMethods: TOKEN_ENDPOINT_AUTH_METHODS,
  }, status);
}

export function renderNotFound(reply: FastifyReply): Promise<FastifyReply> {
  const t = reply.translator();
  return reply.render('error', { message: t('admin.notFound'), link: { href: ADMIN_BASE, text: t('admin.back') } }, 404);
}

export function renderSecret(reply: FastifyReply, client: { clientId: string; name: string }, secret: string, notice?: string): Promise<FastifyReply> {
  return reply.render('admin-client-secret', { client, secret, notice });
}
