/** The tables of one-time codes (migration 065). */
import type { ColumnType } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface OneTimeCodeSecretsTable {
  user_id: number;
  /** AES-256-GCM: IV, ciphertext, tag (secret-box.ts). */
  secret: Buffer;
  /** Null while the enrolment waits for its first code. */
  enabled_at: Date | null;
  /** RFC 6238 time step of the last accepted code (Unix time / 30: an integer until the year 4000). */
  last_used_step: number | null;
  created_at: CreatedAt;
}

export interface RecoveryCodesTable {
  user_id: number;
  code_digest: Buffer;
  used_at: Date | null;
}

export interface PendingLoginsTable {
  id_digest: Buffer;
  user_id: number;
  account: string;
  remember: boolean;
  return_to: string;
  expires_at: Date;
}

export interface OneTimeCodeTables {
  one_time_code_secrets: OneTimeCodeSecretsTable;
  recovery_codes: RecoveryCodesTable;
  pending_logins: PendingLoginsTable;
}
