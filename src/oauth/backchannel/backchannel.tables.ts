/** Kysely types of the logout-notice queue (migration 044_backchannel_logout.sql). */
import type { ColumnType, Generated } from 'kysely';

export type LogoutNoticeState = 'pending' | 'sent' | 'abandoned';

export interface OAuthLogoutNoticesTable {
  id: Generated<number>;
  /** The client's `client_id`: the logout token's `aud`. */
  client_id: string;
  backchannel_logout_uri: string;
  sub: string;
  sid: string | null;
  state: Generated<LogoutNoticeState>;
  attempts: Generated<number>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  last_attempt_at: Date | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Date | null;
}

export interface BackchannelTables {
  oauth_logout_notices: OAuthLogoutNoticesTable;
}
