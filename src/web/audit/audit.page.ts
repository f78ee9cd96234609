/**
 * The audit log `/admin/audit`, organisation members and above (as the
 * client admin screen): the stored security events (ops/audit/), newest
 * first, filtered by a GET form, PAGE_SIZE a page with newer/older links.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/database.ts';
import { listSecurityEvents } from '../../ops/audit/audit-query.ts';
import { SECURITY_EVENT_NAMES } from '../../ops/security-events.ts';
import { escapeForTerminal } from '../../text/control-characters.ts';
import { localeOf } from '../language/locale.ts';
import { pageSession } from '../page-access.ts';
import { AuditQuery, readAuditQuery, TIME_ZONE } from './audit-form.ts';

export const AUDIT_PAGE = '/admin/audit';
export const PAGE_SIZE = 50;

export interface AuditPageOptions {
  config: Config;
  db: DB;
  clock: Clock;
}

/** The query string of another page of the same filters. */
function pageLink(query: AuditQuery, page: number): string {
  const params = new URLSearchParams();
  for (const key of ['member', 'actor', 'client', 'event', 'from', 'to'] as const) {
    const value = query[key]?.trim();
    if (value) params.set(key, value);
  }
  if (page > 1) params.set('page', String(page));
  const search = params.toString();
  return search ? `${AUDIT_PAGE}?${search}` : AUDIT_PAGE;
}

export const auditPage: FastifyPluginAsyncTypebox<AuditPageOptions> = async (app, { config, db }) => {
  app.get(AUDIT_PAGE, { schema: { querystring: AuditQuery } }, async (request, reply) => {
    if (!(await pageSession(request, reply, { orgaOnly: true, returnTo: AUDIT_PAGE }))) return reply;
    const t = reply.translator();
    const query = request.query;
    const { filter, page, errors } = readAuditQuery(query);
    const result = errors.length > 0 ? { events: [], more: false } : await listSecurityEvents(db, filter, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    return reply.render('admin-audit', {
      values: query,
      errors: Object.fromEntries(errors.map((field) => [field, t(`audit.error.${field}`)])),
      formError: errors.length > 0 ? t('audit.invalid') : undefined,
      eventNames: SECURITY_EVENT_NAMES,
      // Each event's details as JSON, with every control and bidirectional formatting character written as its
      // \uXXXX escape (as `audit list` prints them): a value an app or a member chose cannot reorder the row.
      events: result.events.map((event) => ({ ...event, detailsText: escapeForTerminal(JSON.stringify(event.details), 'escape') })),
      retentionDays: config.auditRetentionDays,
      page,
      previous: page > 1 && errors.length === 0 ? pageLink(query, page - 1) : undefined,
      next: result.more ? pageLink(query, page + 1) : undefined,
      dateFormat: new Intl.DateTimeFormat(localeOf(request) === 'en' ? 'en-GB' : 'de-DE', { dateStyle: 'medium', timeStyle: 'medium', timeZone: TIME_ZONE }),
    }, errors.length > 0 ? 400 : 200);
  });
};
