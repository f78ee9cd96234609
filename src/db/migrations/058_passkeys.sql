-- Passkeys (WebAuthn discoverable credentials) a member registered on
-- /settings/security (docs/security.md, "Passkeys"). Public keys only: the
-- private key never leaves the member's authenticator.
create table passkeys (
  id serial primary key,
  user_id integer not null references users (id) on delete cascade,
  -- The credential ID the authenticator returns (base64url), unique across all members.
  credential_id text not null unique,
  -- COSE public key.
  public_key bytea not null,
  -- Signature counter; a value that goes backwards is refused.
  sign_count bigint not null default 0,
  transports text[] not null default '{}',
  -- 'singleDevice' or 'multiDevice' (synced); decides `hwk` or `swk` in `amr`.
  device_type text not null,
  backed_up boolean not null,
  -- The member's own name for it ("Phone", "Laptop").
  name text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_user_idx on passkeys (user_id);
