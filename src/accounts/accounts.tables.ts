import type { ColumnType, Generated } from 'kysely';

export type RegionType = 'country' | 'state' | 'region' | 'city' | 'district' | 'working-group';
export const REGION_TYPES: readonly RegionType[] = ['country', 'state', 'region', 'city', 'district', 'working-group'];

type CreatedAt = ColumnType<Date, Date | undefined, never>;

export interface RegionsTable {
  id: Generated<number>;
  name: string;
  parent_id: number | null;
  type: Generated<RegionType>;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  first_name: string;
  last_name: string;
  photo: string | null;
  role: Generated<number>;
  verified: Generated<boolean>;
  sleeping: Generated<boolean>;
  home_region_id: number | null;
  created_at: CreatedAt;
  /** Migration 060: since when the member may not sign in (member-status.ts); null while they may. */
  disabled_at: Generated<Date | null>;
  /** Migration 060: when the member was deleted (member-deletion.ts); the row is then an anonymous stand-in. */
  deleted_at: Generated<Date | null>;
}

export interface RegionMembershipsTable {
  user_id: number;
  region_id: number;
  joined_at: CreatedAt;
}

export interface RegionAmbassadorsTable {
  user_id: number;
  region_id: number;
}

export interface SessionsTable {
  id_digest: Buffer;
  /** The session's public id (OpenID Connect `sid`; migration 043): random, base64url. */
  sid: Generated<string>;
  user_id: number;
  csrf_token: string;
  remember: boolean;
  auth_time: Date;
  /** Migration 057: how the member signed in (RFC 8176 values). */
  amr: Generated<string[]>;
  expires_at: Date;
  created_at: CreatedAt;
  /** Migration 050: last request seen (at most five minutes late), the User-Agent, the shortened client address. */
  last_seen_at: Generated<Date>;
  user_agent: string | null;
  network: string | null;
}

export interface LoginThrottleTable {
  key: string;
  failures: number;
  window_ends_at: Date;
}

/** One-time links that unlock logins by email (migration 047; accounts/login-unlock.ts). */
export interface LoginUnlockTokensTable {
  digest: Buffer;
  account: string;
  user_id: number;
  return_to: string;
  expires_at: Date;
  created_at: CreatedAt;
}

/** One-time links that set a forgotten password (migration 056; accounts/password-reset.ts). */
export interface PasswordResetTokensTable {
  digest: Buffer;
  user_id: number;
  return_to: string;
  password_hash_digest: Buffer;
  expires_at: Date;
  created_at: CreatedAt;
}

/** Migration 058: a member's passkeys (WebAuthn credentials): public keys only. */
export interface PasskeysTable {
  id: Generated<number>;
  user_id: number;
  /** base64url, unique across members. */
  credential_id: string;
  /** COSE public key. */
  public_key: Buffer;
  sign_count: Generated<string>;
  transports: Generated<string[]>;
  /** 'singleDevice' or 'multiDevice'. */
  device_type: string;
  backed_up: boolean;
  name: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
}

export interface AccountsTables {
  regions: RegionsTable;
  users: UsersTable;
  region_memberships: RegionMembershipsTable;
  region_ambassadors: RegionAmbassadorsTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
  login_unlock_tokens: LoginUnlockTokensTable;
  password_reset_tokens: PasswordResetTokensTable;
  passkeys: PasskeysTable;
}
