-- One-time codes as a second factor (RFC 6238 TOTP), their recovery codes, the
-- pending second step of a login, and the authentication context class an
-- app asked for and was given (docs/security.md, "Second factor").

-- A member's TOTP secret, AES-256-GCM encrypted under a key derived from the
-- server's encryption key (the user id is the additional authenticated data).
-- `enabled_at` is null while the enrolment waits for its first code;
-- `last_used_step` is the RFC 6238 time step of the last accepted code: a code
-- of that step or an earlier one is refused (RFC 6238 §5.2, no replay).
create table one_time_code_secrets (
  user_id integer primary key references users (id) on delete cascade,
  secret bytea not null,
  enabled_at timestamptz,
  last_used_step integer,
  created_at timestamptz not null default now()
);

-- Recovery codes: keyed digests only (HMAC-SHA-256); each usable once.
create table recovery_codes (
  user_id integer not null references users (id) on delete cascade,
  code_digest bytea not null,
  used_at timestamptz,
  primary key (user_id, code_digest)
);

-- A correct password waiting for its second factor: no session exists yet.
-- The browser holds the random id in a cookie; this keeps its SHA-256 digest.
create table pending_logins (
  id_digest bytea primary key,
  user_id integer not null references users (id) on delete cascade,
  -- The email as the login throttle counts it (login-throttle.ts accountOf).
  account text not null,
  remember boolean not null,
  return_to text not null,
  expires_at timestamptz not null
);
create index pending_logins_expiry_idx on pending_logins (expires_at);

-- OpenID Connect Core §2, §5.5.1.1: the `acr` value requested (acr_values or
-- an essential `acr` claim) and met, stated in the ID token; null: the
-- strongest level the session's `amr` reaches.
alter table oauth_codes add column acr text;
alter table oauth_grants add column acr text;
