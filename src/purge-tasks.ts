/**
 * The scheduled purge's list (ops/maintenance.ts runs it every ten minutes):
 * every table whose rows expire, each purged in bounded batches, so that no
 * table grows without bound. A new table with expiring rows adds its purge here.
 *
 * | table | purged |
 * |---|---|
 * | sessions (with their oauth_session_clients) | at expiry |
 * | login_throttle | when the counter's window ends |
 * | login_unlock_tokens, password_reset_tokens | at expiry |
 * | webauthn_challenges, pending_logins | at expiry |
 * | mail_outbox | sent or abandoned 7 days ago |
 * | oauth_refresh_tokens | at expiry (the rest with their grant) |
 * | oauth_codes | a day after expiry (a late reuse still revokes) |
 * | oauth_grants | at expiry (each refresh extends it) |
 * | oauth_signing_keys | when their last token expired |
 * | oauth_logout_notices | sent or abandoned 7 days ago |
 * | oauth_device_codes | a day after expiry (a late poll is told `expired_token`) |
 * | oauth_pushed_requests, oauth_client_assertions, oauth_dpop_proofs | at expiry |
 * | oauth_failure_windows | when the window ends |
 * | security_events | after AUDIT_RETENTION_DAYS |
 * | forum_subscriptions | of deleted members (one set at the moment of the deletion) |
 */
import { purgeExpiredThrottles } from './accounts/login-throttle.ts';
import { purgeExpiredUnlockTokens } from './accounts/login-unlock.ts';
import { purgeExpiredPendingLogins } from './accounts/one-time-codes/pending-logins.ts';
import { purgeExpiredChallenges } from './accounts/passkeys/challenges.ts';
import { purgeExpiredResetTokens } from './accounts/password-reset.ts';
import { purgeExpiredSessions } from './accounts/sessions.ts';
import { purgeSubscriptionsOfDeletedMembers } from './api/forum/forum.repository.ts';
import { purgeFinishedMails } from './mail/mail-outbox.repository.ts';
import { purgeExpiredOAuthRows } from './oauth/oauth.purge.ts';
import { auditPurgeTask } from './ops/audit/audit-purge.ts';
import type { PurgeTask } from './ops/maintenance.ts';
import { purgeExpiredRefreshTokens } from './ops/refresh-token-purge.ts';

export function purgeTasks(options: { auditRetentionDays: number }): PurgeTask[] {
  return [
    purgeExpiredSessions, purgeExpiredThrottles, purgeExpiredUnlockTokens, purgeExpiredResetTokens,
    purgeExpiredChallenges, purgeExpiredPendingLogins,
    (db, clock) => purgeFinishedMails(db, clock()),
    // Refresh-token rows before their grants, so that a grant's delete cascades to few.
    purgeExpiredRefreshTokens, purgeExpiredOAuthRows,
    auditPurgeTask(options.auditRetentionDays),
    purgeSubscriptionsOfDeletedMembers,
  ];
}
