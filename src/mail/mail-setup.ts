/** The mail sender an app runs for its configuration (`MAIL=off`: none). */
import type { Clock } from '../clock.ts';
import type { MailSetting } from '../config.ts';
import type { DB } from '../db/database.ts';
import type { EventLog } from '../ops/security-events.ts';
import { MailSender, type MailComposer } from './mail-sender.ts';
import { outboxTransport, smtpTransport } from './mail-transport.ts';

/** Seconds between two looks of an instance at the mail queue. */
export const MAIL_POLL_MS = 2000;

export function openMailSender(setting: MailSetting, publicUrl: string, db: DB, clock: Clock, log: EventLog,
  composers: Readonly<Record<string, MailComposer>>): MailSender | undefined {
  if (setting.mode === 'off') return undefined;
  const transport = setting.mode === 'smtp' ? smtpTransport(setting.smtpUrl, setting.from) : outboxTransport(setting.dir, setting.from, log);
  return new MailSender({ db, clock, transport, composers, messageIdHost: new URL(publicUrl).hostname, log });
}
