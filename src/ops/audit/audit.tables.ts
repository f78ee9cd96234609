/** Kysely types of the audit log (migration 055_security_events.sql). */
import type { ColumnType } from 'kysely';

export interface SecurityEventsTable {
  id: ColumnType<number, never, never>;
  occurred_at: ColumnType<Date, Date, never>;
  event: string;
  level: 'info' | 'warn';
  /** The member the event concerns; kept when the account is deleted (no foreign key). */
  user_id: number | null;
  client_id: string | null;
  ip: string | null;
  /** The event's other fields, as logged. */
  details: ColumnType<Record<string, unknown>, string, never>;
}

export interface AuditTables {
  security_events: SecurityEventsTable;
}
