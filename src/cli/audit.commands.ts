/** `audit list`: the stored security events (the audit log, docs/security-events.md), newest first. */
import { isStoredEvent, listSecurityEvents, type AuditFilter, type StoredSecurityEvent } from '../ops/audit/audit-query.ts';
import { isSecurityEventName, SECURITY_EVENT_NAMES } from '../ops/security-events.ts';
import { optionalEmail, optionalInteger, optionalString, RefusedInput, UsageError, type CliCommand, type OptionValues } from './command.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 10_000;

function instant(values: OptionValues, name: string): Date | undefined {
  const text = optionalString(values, name);
  if (text === undefined) return undefined;
  // ISO 8601 only (a date, or a date and time): Date.parse also takes forms that differ between engines.
  const at = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? new Date(text) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date or time (2026-05-01, 2026-05-01T12:00:00Z), got ${JSON.stringify(text)}`);
  return at;
}

function filterOf(values: OptionValues): AuditFilter {
  const event = optionalString(values, 'event');
  if (event !== undefined && !isSecurityEventName(event)) {
    throw new UsageError(`--event must be one of ${SECURITY_EVENT_NAMES.join(', ')}, got ${JSON.stringify(event)}`);
  }
  if (values.user !== undefined && values.email !== undefined) throw new UsageError('give at most one of --user, --email');
  if (values.actor !== undefined && values['actor-email'] !== undefined) throw new UsageError('give at most one of --actor, --actor-email');
  return {
    userId: optionalInteger(values, 'user'),
    email: optionalEmail(values, 'email'),
    actorId: optionalInteger(values, 'actor'),
    actorEmail: optionalEmail(values, 'actor-email'),
    clientId: optionalString(values, 'client'),
    event,
    since: instant(values, 'since'),
    until: instant(values, 'until'),
    beforeId: optionalInteger(values, 'before'),
  };
}

function describe(e: StoredSecurityEvent): string {
  const who = e.userId === null ? '' : `  user ${e.userId}${e.email ? ` <${e.email}>` : ''}`;
  const details = Object.keys(e.details).length > 0 ? `  ${JSON.stringify(e.details)}` : '';
  return `${e.occurredAt.toISOString()}  ${e.level.padEnd(4)}  ${e.event}${who}${e.clientId ? `  client ${e.clientId}` : ''}${e.ip ? `  ip ${e.ip}` : ''}${details}`;
}

export const auditListCommand: CliCommand = {
  words: ['audit', 'list'],
  summary: 'list the stored security events (the audit log), newest first',
  details: [`Events are kept AUDIT_RETENTION_DAYS days (default 90). --since is inclusive, --until exclusive.`],
  options: {
    user: { type: 'string', value: 'ID', help: 'only events of this member (user id)' },
    email: { type: 'string', value: 'EMAIL', help: 'only events of the member with this email' },
    actor: { type: 'string', value: 'ID', help: 'only what this organisation member did on the admin screen (user id)' },
    'actor-email': { type: 'string', value: 'EMAIL', help: 'the same, by their email' },
    client: { type: 'string', value: 'ID', help: 'only events of this client (client_id)' },
    event: { type: 'string', value: 'NAME', help: 'only events of this name (docs/security-events.md)' },
    since: { type: 'string', value: 'ISO', help: 'only events at or after this time' },
    until: { type: 'string', value: 'ISO', help: 'only events before this time' },
    limit: { type: 'string', value: 'N', help: `at most N events (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})` },
    before: { type: 'string', value: 'ID', help: 'only the events listed after the event ID: the next page, from the id a listing ends with' },
  },
  async run(context, values) {
    const filter = filterOf(values);
    const limit = optionalInteger(values, 'limit') ?? DEFAULT_LIMIT;
    if (limit > MAX_LIMIT) throw new UsageError(`--limit must be at most ${MAX_LIMIT}, got ${limit}`);
    const db = await context.database();
    if (filter.beforeId !== undefined && !(await isStoredEvent(db, filter.beforeId))) {
      throw new RefusedInput(`there is no stored event ${filter.beforeId} (events are kept AUDIT_RETENTION_DAYS days)`);
    }
    const { events, more } = await listSecurityEvents(db, filter, limit);
    return {
      json: events.map((e) => ({ ...e, occurredAt: e.occurredAt.toISOString() })),
      text: events.length === 0
        ? ['No security events match.']
        : [...events.map(describe), ...(more ? [`More events match; the next page: --before ${events.at(-1)!.id} (or narrow the filters, or raise --limit).`] : [])],
    };
  },
};
