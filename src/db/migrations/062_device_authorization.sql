-- OAuth 2.0 Device Authorization Grant (RFC 8628). A device asks at
-- /oauth/device_authorization and gets a device code (256 random bits, only
-- its SHA-256 digest is stored) and a short user code the member types at
-- /device (only its keyed HMAC-SHA256 digest is stored). The member's
-- confirmation spends the user code and hands the browser a one-time
-- continuation (digest stored) for login and consent; the decision records
-- who approved, from which login session; the device's first poll after an
-- approval redeems the row once (status 'used'), creating the grant.
create table oauth_device_codes (
  device_code_digest bytea primary key,
  user_code_digest bytea not null unique,
  continuation_digest bytea unique,
  client_id integer not null references oauth_clients (id) on delete cascade,
  scopes text[] not null,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied', 'used')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  confirmed_at timestamptz,
  decided_at timestamptz,
  user_id integer references users (id) on delete cascade,
  auth_time timestamptz,
  -- How the approving member signed in (RFC 8176 `amr`, as sessions.amr), carried to the grant.
  amr text[] not null default '{pwd}',
  -- The login session that approved; the redemption needs it live.
  sid text,
  grant_id integer references oauth_grants (id) on delete set null,
  check (status not in ('approved', 'used') or (user_id is not null and auth_time is not null))
);
create index oauth_device_codes_expires_idx on oauth_device_codes (expires_at);
create index oauth_device_codes_client_idx on oauth_device_codes (client_id);
create index oauth_device_codes_user_idx on oauth_device_codes (user_id);
create index oauth_device_codes_grant_idx on oauth_device_codes (grant_id);
