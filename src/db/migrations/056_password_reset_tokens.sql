-- One-time links that set a forgotten password (docs/security.md, "Resetting
-- a forgotten password"): the SHA-256 digest of a 256-bit random token,
-- consumed by one delete. `password_hash_digest` is the SHA-256 of the
-- member's password hash when the link was made: a redemption requires it to
-- match still, so every change of the password (a reset, /settings/security,
-- the CLI) ends the older links without having to remember them.
create table password_reset_tokens (
  digest bytea primary key,
  user_id integer not null references users (id) on delete cascade,
  -- The page the login was for (a pending authorization request, say).
  return_to text not null,
  password_hash_digest bytea not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index password_reset_tokens_user_idx on password_reset_tokens (user_id);
create index password_reset_tokens_expires_idx on password_reset_tokens (expires_at);
