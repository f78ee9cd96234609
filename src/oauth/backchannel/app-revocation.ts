/**
 * A member revoking an app ends its sign-ins (Back-Channel Logout 1.0 §2.7:
 * the client should end its sessions of the member). Deleting the rows of
 * `oauth_session_clients` queues one notice per session that signed into the
 * client, with its `sid` (trigger of migration 044). With no such session, the
 * client may still hold one of its own: it gets one notice naming the member
 * (`sub`) only — unless it requires `sid` (§2.2 `backchannel_logout_session_required`),
 * in which case a notice without one would break its rules, and none is sent.
 */
import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/** In the caller's transaction (the revocation's); returns the number of sessions that had signed into the client. */
export async function endSignInsOfApp(db: Executor, userId: number, clientRowId: number, now: Date): Promise<number> {
  const ended = await db.deleteFrom('oauth_session_clients')
    .where('user_id', '=', userId).where('client_id', '=', clientRowId).executeTakeFirst();
  const sessions = Number(ended.numDeletedRows);
  if (sessions > 0) return sessions;
  await sql`insert into oauth_logout_notices (client_id, backchannel_logout_uri, sub, sid, next_attempt_at)
    select client_id, backchannel_logout_uri, ${String(userId)}, null, ${now} from oauth_clients
    where id = ${clientRowId} and backchannel_logout_uri is not null and not backchannel_logout_session_required`.execute(db);
  return 0;
}
