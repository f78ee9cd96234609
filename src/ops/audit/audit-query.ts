/**
 * Reading the audit log (/admin/audit, `audit list`): newest first, filtered
 * by member (id or email), by who acted (the organisation member of an admin
 * action, id or email), client, event and time, a page at a time.
 */
import { sql } from 'kysely';
import type { DB } from '../../db/database.ts';
import type { SecurityEventName } from '../security-events.ts';

export interface AuditFilter {
  readonly userId?: number;
  /** The member's email, any case; an email no account has finds nothing. */
  readonly email?: string;
  /** The organisation member who acted (`actorId` in the details: admin actions). */
  readonly actorId?: number;
  /** The same by their email, any case. */
  readonly actorEmail?: string;
  readonly clientId?: string;
  readonly event?: SecurityEventName;
  /** Inclusive. */
  readonly since?: Date;
  /** Exclusive. */
  readonly until?: Date;
  /** Only events listed after this one (newest first: older, or as old with a smaller id): the next page. */
  readonly beforeId?: number;
}

export interface StoredSecurityEvent {
  readonly id: number;
  readonly occurredAt: Date;
  readonly event: string;
  readonly level: 'info' | 'warn';
  readonly userId: number | null;
  /** The member's current email; null when the event names none or the account is gone. */
  readonly email: string | null;
  readonly clientId: string | null;
  readonly ip: string | null;
  readonly details: Record<string, unknown>;
}

export interface AuditPage {
  readonly events: readonly StoredSecurityEvent[];
  /** More events follow this page. */
  readonly more: boolean;
}

/** `limit` events after skipping `offset`, newest first. */
export async function listSecurityEvents(db: DB, filter: AuditFilter, limit: number, offset = 0): Promise<AuditPage> {
  let query = db.selectFrom('security_events as e').leftJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.id', 'e.occurred_at', 'e.event', 'e.level', 'e.user_id', 'u.email', 'e.client_id', 'e.ip', 'e.details']);
  if (filter.userId !== undefined) query = query.where('e.user_id', '=', filter.userId);
  if (filter.email !== undefined) {
    const email = filter.email;
    query = query.where('e.user_id', 'in', (q) => q.selectFrom('users').select('id').where(sql<string>`lower(email)`, '=', email.toLowerCase()));
  }
  // `details ? 'actorId'` lets the partial index of migration 071 serve these.
  if (filter.actorId !== undefined) {
    query = query.where(sql<boolean>`e.details ? 'actorId' and e.details ->> 'actorId' = ${String(filter.actorId)}`);
  }
  if (filter.actorEmail !== undefined) {
    query = query.where(sql<boolean>`e.details ? 'actorId' and e.details ->> 'actorId' in (select id::text from users where lower(email) = ${filter.actorEmail.toLowerCase()})`);
  }
  if (filter.clientId !== undefined) query = query.where('e.client_id', '=', filter.clientId);
  if (filter.event !== undefined) query = query.where('e.event', '=', filter.event);
  if (filter.since !== undefined) query = query.where('e.occurred_at', '>=', filter.since);
  if (filter.until !== undefined) query = query.where('e.occurred_at', '<', filter.until);
  // Keyset on the listing's own order: events of one millisecond are not lost between pages, as they are to --until.
  if (filter.beforeId !== undefined) {
    query = query.where(sql<boolean>`(e.occurred_at, e.id) < (select s.occurred_at, s.id from security_events s where s.id = ${filter.beforeId})`);
  }
  const rows = await query.orderBy('e.occurred_at', 'desc').orderBy('e.id', 'desc').limit(limit + 1).offset(offset).execute();
  return {
    more: rows.length > limit,
    events: rows.slice(0, limit).map((r) => ({
      id: Number(r.id),
      occurredAt: r.occurred_at,
      event: r.event,
      level: r.level,
      userId: r.user_id,
      email: r.email,
      clientId: r.client_id,
      ip: r.ip,
      details: r.details,
    })),
  };
}

/** Whether the audit log holds the event `id` (a page's cursor: purged after the retention). */
export async function isStoredEvent(db: DB, id: number): Promise<boolean> {
  return (await db.selectFrom('security_events').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
