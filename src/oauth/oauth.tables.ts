/** Kysely types of the OAuth tables (migrations 010_oauth.sql, 040, 043, 051, 052, 054). */
import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | undefined, Date>;

export interface OAuthClientsTable {
  id: Generated<number>;
  client_id: string;
  name: string;
  confidential: boolean;
  secret_digest: Buffer | null;
  redirect_uris: string[];
  origins: Generated<string[]>;
  scopes: string[];
  grant_types: string[];
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Raised by triggers on every change of the client or its regions (migration 040). */
  version: Generated<number>;
  /** Migration 043: RP-Initiated Logout and Back-Channel Logout registration. */
  post_logout_redirect_uris: Generated<string[]>;
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: Generated<boolean>;
  /** Migration 051: RFC 9126 §6, authorization requests only as pushed ones. */
  require_pushed_authorization_requests: Generated<boolean>;
  /** Migration 052: RS256, ES256 or EdDSA (OpenID Connect Registration 1.0 §2). */
  id_token_signed_response_alg: Generated<string>;
  /** Migration 054: RFC 7591 §2; private_key_jwt with jwks or jwks_uri (RFC 7523, OpenID Connect Core 1.0 §9). */
  token_endpoint_auth_method: Generated<string>;
  jwks: ColumnType<{ keys: Record<string, unknown>[] } | null, string | null, string | null>;
  jwks_uri: string | null;
  /** Migration 061 (RFC 9449 §5.2): token requests must carry a DPoP proof. */
  dpop_bound_access_tokens: Generated<boolean>;
}

/** Migration 054: digests of client assertions' jti, until the assertion expires (RFC 7523 §3). */
export interface OAuthClientAssertionsTable {
  jti_digest: Buffer;
  expires_at: Date;
}

/** Pushed authorization requests and their continuations (migration 051), by the digest of their reference. */
export interface OAuthPushedRequestsTable {
  reference_digest: Buffer;
  client_id: number;
  parameters: ColumnType<Record<string, string>, string, string>;
  expires_at: Date;
}

export interface OAuthClientRegionsTable {
  client_id: number;
  region_id: number;
}

export interface OAuthConsentsTable {
  user_id: number;
  client_id: number;
  scopes: string[];
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OAuthGrantsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  scopes: string[];
  auth_time: Date;
  /** Migration 057: how the member signed in, from the code's session (RFC 8176 values). */
  amr: Generated<string[]>;
  /** Migration 065: the requested `acr` value met, or null. */
  acr: string | null;
  created_at: CreatedAt;
  expires_at: Date;
  revoked_at: Date | null;
  /** The login session the grant came from (migration 043); null when unknown. */
  sid: string | null;
  /** Migration 061 (RFC 9449 §5): the DPoP key a public client's refresh tokens are bound to. */
  dpop_jkt: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OAuthCodesTable {
  code_digest: Buffer;
  client_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  nonce: string | null;
  auth_time: Date;
  /** Migration 057: how the member signed in, from the session (RFC 8176 values). */
  amr: Generated<string[]>;
  /** Migration 065: the requested `acr` value met, or null. */
  acr: string | null;
  created_at: CreatedAt;
  expires_at: Date;
  used_at: Date | null;
  grant_id: number | null;
  /** The login session the code was issued under (migration 043). */
  sid: string | null;
  /** Migration 061 (RFC 9449 §10): the DPoP key the code may only be redeemed with. */
  dpop_jkt: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The clients a login session signed into (migration 043): whom to tell when it ends. */
export interface OAuthSessionClientsTable {
  sid: string;
  client_id: number;
  user_id: number;
  created_at: CreatedAt;
}

export interface OAuthRefreshTokensTable {
  id: Generated<number>;
  grant_id: number;
  scopes: string[];
  created_at: CreatedAt;
  expires_at: Date;
  rotated_at: Date | null;
  successor_id: number | null;
}

export interface OAuthSigningKeysTable {
  kid: string;
  /** Migration 052: RS256, ES256 or EdDSA; one active key per algorithm. */
  alg: ColumnType<string, string | undefined, never>;
  private_jwe: string;
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  created_at: CreatedAt;
  activated_at: Date;
  retired_at: Date | null;
  not_after: Date | null;
}

/** RFC 8628 device authorizations (migration 062); digests only. */
export interface OAuthDeviceCodesTable {
  device_code_digest: Buffer;
  user_code_digest: Buffer;
  continuation_digest: Buffer | null;
  client_id: number;
  scopes: string[];
  status: ColumnType<DeviceCodeStatus, DeviceCodeStatus | undefined, DeviceCodeStatus>;
  created_at: CreatedAt;
  expires_at: Date;
  confirmed_at: Date | null;
  decided_at: Date | null;
  user_id: number | null;
  auth_time: Date | null;
  /** How the approving member signed in (RFC 8176), carried to the grant. */
  amr: Generated<string[]>;
  sid: string | null;
  grant_id: number | null;
  /** The polling pace (RFC 8628 §3.5, migration 072): null until the first poll. */
  last_polled_at: Date | null;
  poll_interval_seconds: number | null;
}

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'used';

/** Used DPoP proofs (migration 061, RFC 9449 §11.1): the digest of each key's jti until the proof expires. */
export interface OAuthDpopProofsTable {
  jti_digest: Buffer;
  expires_at: Date;
}

/** The failed-request limiter's windows (migration 070, failure-limiter.ts): failures counted for `key` until `resets_at`. */
export interface OAuthFailureWindowsTable {
  key: string;
  failures: number;
  resets_at: Date;
}

export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_client_regions: OAuthClientRegionsTable;
  oauth_consents: OAuthConsentsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_signing_keys: OAuthSigningKeysTable;
  oauth_session_clients: OAuthSessionClientsTable;
  oauth_pushed_requests: OAuthPushedRequestsTable;
  oauth_client_assertions: OAuthClientAssertionsTable;
  oauth_device_codes: OAuthDeviceCodesTable;
  oauth_dpop_proofs: OAuthDpopProofsTable;
  oauth_failure_windows: OAuthFailureWindowsTable;
}
