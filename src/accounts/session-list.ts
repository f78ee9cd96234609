/** A member's live sessions, as `/settings/security` lists them (migration 050). */
import type { Executor } from '../db/executor.ts';

export interface ActiveSession {
  /** The public session id (OpenID Connect `sid`): what the member's "end" form names. */
  readonly sid: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
  readonly userAgent: string | null;
  readonly network: string | null;
}

/** The user's sessions that have not expired at `now`, the most recently used first. */
export async function listSessionsOfUser(db: Executor, userId: number, now: Date): Promise<ActiveSession[]> {
  const rows = await db.selectFrom('sessions')
    .select(['sid', 'created_at', 'last_seen_at', 'expires_at', 'user_agent', 'network'])
    .where('user_id', '=', userId).where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc').orderBy('created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    sid: r.sid, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at, userAgent: r.user_agent, network: r.network,
  }));
}

/** How many sessions of the user have not expired at `now`. */
export async function countSessionsOfUser(db: Executor, userId: number, now: Date): Promise<number> {
  const row = await db.selectFrom('sessions').select((eb) => eb.fn.countAll<string>().as('count'))
    .where('user_id', '=', userId).where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
