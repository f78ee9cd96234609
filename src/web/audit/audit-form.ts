/**
 * The filter form of /admin/audit (a GET form): what the query string asks
 * for, checked, as the audit log's filter; times are entered and shown in
 * Europe/Berlin, the organisation's time.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AuditFilter } from '../../ops/audit/audit-query.ts';
import { isSecurityEventName } from '../../ops/security-events.ts';
import { hasRefusedNameCharacters } from '../../text/control-characters.ts';

export const TIME_ZONE = 'Europe/Berlin';
export const MAX_PAGE = 10_000;

export const AuditQuery = Type.Object({
  member: Type.Optional(Type.String({ maxLength: 320 })),
  actor: Type.Optional(Type.String({ maxLength: 320 })),
  client: Type.Optional(Type.String({ maxLength: 200 })),
  event: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
  page: Type.Optional(Type.String({ maxLength: 10 })),
}, { additionalProperties: false });
export type AuditQuery = Static<typeof AuditQuery>;

export type AuditField = 'member' | 'actor' | 'client' | 'event' | 'from' | 'to' | 'page';

/** Minutes Berlin is ahead of UTC at `instant`. */
function berlinOffsetMinutes(instant: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: TIME_ZONE, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' })
    .formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return (Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute')) - Math.floor(instant / 60_000) * 60_000) / 60_000;
}

/** A `datetime-local` value (or a date: its midnight) read as Berlin time; undefined when it is none. */
export function berlinInstant(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour = '0', minute = '0'] = match.slice(1).map((v) => v ?? '0') as string[];
  const naive = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute));
  const back = new Date(naive);
  if (back.getUTCMonth() !== Number(month) - 1 || back.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59) return undefined;
  // The offset at the guess, then at the result: right on both sides of a DST change.
  const first = naive - berlinOffsetMinutes(naive) * 60_000;
  return new Date(naive - berlinOffsetMinutes(first) * 60_000);
}

export interface ReadFilter {
  readonly filter: AuditFilter;
  readonly page: number;
  /** The field each refused value came from; empty when all are fine. */
  readonly errors: readonly AuditField[];
}

export function readAuditQuery(query: AuditQuery): ReadFilter {
  const errors: AuditField[] = [];
  const text = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
  const client = text(query.client);
  // No address or client id holds such a character (and PostgreSQL text no NUL): refused, not searched.
  if (client !== undefined && hasRefusedNameCharacters(client)) errors.push('client');
  const event = text(query.event);
  if (event !== undefined && !isSecurityEventName(event)) errors.push('event');
  const at = (field: 'from' | 'to') => {
    const value = text(query[field]);
    const instant = value === undefined ? undefined : berlinInstant(value);
    if (value !== undefined && instant === undefined) errors.push(field);
    return instant;
  };
  const since = at('from');
  const until = at('to');
  const pageText = text(query.page) ?? '1';
  const page = /^[1-9]\d{0,4}$/.test(pageText) && Number(pageText) <= MAX_PAGE ? Number(pageText) : 0;
  if (page === 0) errors.push('page');
  const who = memberOf(text(query.member), 'member', errors);
  const actor = memberOf(text(query.actor), 'actor', errors);
  return {
    filter: { userId: who.id, email: who.email, actorId: actor.id, actorEmail: actor.email, clientId: client, event: event as AuditFilter['event'], since, until },
    page: Math.max(page, 1),
    errors,
  };
}

/** A member named by id or by email; a value that is neither is refused as `field`. */
function memberOf(value: string | undefined, field: 'member' | 'actor', errors: AuditField[]): { id?: number; email?: string } {
  if (value === undefined) return {};
  if (/^\d+$/.test(value)) {
    if (value.length <= 9) return { id: Number(value) };
  } else if (value.includes('@') && !hasRefusedNameCharacters(value)) {
    return { email: value };
  }
  errors.push(field);
  return {};
}
