/** Kysely types of the mail queue (migration 047_mail_and_login_unlock.sql). */
import type { ColumnType, Generated } from 'kysely';

export type MailState = 'pending' | 'sent' | 'skipped' | 'abandoned';
export type MailLocale = 'de' | 'en';

export interface MailOutboxTable {
  id: Generated<number>;
  /** Which composer writes the message (mail-composer.ts). */
  kind: string;
  recipient: string;
  locale: MailLocale;
  params: ColumnType<Record<string, string>, string | undefined, string>;
  message_key: Generated<string>;
  state: Generated<MailState>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  last_attempt_at: Date | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Date | null;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
}
