-- A fingerprint of the deployment's encryption key (OAUTH_ENCRYPTION_KEY): an
-- HMAC of a fixed label under a key derived from it, never the key itself. The
-- first instance writes it; every later start compares, so an instance
-- configured with another key refuses to start instead of failing requests.
create table encryption_key_check (
  singleton boolean primary key default true check (singleton),
  fingerprint bytea not null check (length(fingerprint) = 32),
  created_at timestamptz not null default now()
);
