/**
 * The mail queue (migration 047), claimed as the logout-notice queue is
 * (oauth/backchannel/logout-notices.repository.ts): one statement locks due
 * rows with `for update skip locked` and moves them out of reach for a lease,
 * so two instances never send the same row and a row whose sender died is due
 * again when its lease ends. Each claim raises `attempts`, which fences the
 * outcome: only the claim that sent a row records how it went.
 */
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import type { MailLocale } from './mail.tables.ts';
import { deleteInBatches } from '../ops/maintenance.ts';

export interface NewMail {
  readonly kind: string;
  readonly recipient: string;
  readonly locale: MailLocale;
  readonly params?: Readonly<Record<string, string>>;
}

export interface QueuedMail extends Required<NewMail> {
  readonly id: number;
  readonly messageKey: string;
  /** This claim's attempt, counting from 1. */
  readonly attempts: number;
}

/** Queues a mail; pass the transaction of the change it reports. */
export async function enqueueMail(db: Executor, mail: NewMail, now: Date): Promise<number> {
  const row = await db.insertInto('mail_outbox').values({
    kind: mail.kind, recipient: mail.recipient, locale: mail.locale, params: JSON.stringify(mail.params ?? {}), next_attempt_at: now,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Up to `limit` due mails, each out of every other claim's reach until `leaseEnds`. */
export async function claimDueMails(db: Executor, now: Date, leaseEnds: Date, limit: number): Promise<QueuedMail[]> {
  const due = db.selectFrom('mail_outbox').select('id')
    .where('state', '=', 'pending').where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at').orderBy('id').limit(limit)
    .forUpdate().skipLocked();
  const rows = await db.updateTable('mail_outbox')
    .set({ attempts: sql`attempts + 1`, next_attempt_at: leaseEnds, last_attempt_at: now })
    .where('id', 'in', due)
    .returning(['id', 'kind', 'recipient', 'locale', 'params', 'message_key', 'attempts'])
    .execute();
  return rows.sort((a, b) => a.id - b.id).map((r) => ({
    id: r.id, kind: r.kind, recipient: r.recipient, locale: r.locale, params: r.params, messageKey: r.message_key, attempts: r.attempts,
  }));
}

export type MailOutcome =
  | { readonly state: 'sent' }
  | { readonly state: 'skipped' }
  | { readonly state: 'retry'; readonly error: string; readonly retryAt: Date }
  | { readonly state: 'abandoned'; readonly error: string };

/** Records how this claim's attempt went; false when the claim was no longer this one's (its lease had ended). */
export async function recordMailOutcome(db: Executor, mail: Pick<QueuedMail, 'id' | 'attempts'>, outcome: MailOutcome, now: Date): Promise<boolean> {
  const update = db.updateTable('mail_outbox')
    .where('id', '=', mail.id).where('attempts', '=', mail.attempts).where('state', '=', 'pending');
  const result = await (outcome.state === 'retry'
    ? update.set({ next_attempt_at: outcome.retryAt, last_error: outcome.error })
    : update.set({ state: outcome.state, finished_at: now, last_error: outcome.state === 'abandoned' ? outcome.error : null })
  ).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** How long finished rows (with their recipient's address) are kept for operators to look at. */
export const FINISHED_MAIL_DAYS = 7;

export async function purgeFinishedMails(db: Executor, now: Date): Promise<number> {
  const before = new Date(now.getTime() - FINISHED_MAIL_DAYS * 24 * 3600 * 1000);
  return deleteInBatches(db, 'mail_outbox', sql<boolean>`state <> 'pending' and finished_at < ${before}`);
}
