/**
 * Refresh-token rows past their own expiry. A grant's rows otherwise go only
 * with the grant, and a grant in use never expires (each refresh extends it):
 * a client refreshing every hour would add a row an hour for as long as it
 * runs. A row past `expires_at` can no longer be used — the token's own `exp`
 * (the same instant) refuses it before any look-up — and every row that may
 * still be presented, or named as a successor within the grace period, is
 * newer than it. Index: migration 066.
 */
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB } from '../db/database.ts';
import { deleteInBatches } from './maintenance.ts';

export function purgeExpiredRefreshTokens(db: DB, clock: Clock): Promise<number> {
  return deleteInBatches(db, 'oauth_refresh_tokens', sql<boolean>`expires_at <= ${clock()}`);
}
