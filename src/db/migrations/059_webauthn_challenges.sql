-- WebAuthn ceremonies (docs/security.md, "Passkeys").
--
-- A challenge the server handed to a browser: only its SHA-256 digest is
-- kept, bound to what asked for it (`binding_digest`: the digest of the
-- session's public id for a registration, of the login form's CSRF token for
-- a sign-in), for five minutes, and consumed by one delete: single use.
create table webauthn_challenges (
  challenge_digest bytea primary key,
  purpose text not null check (purpose in ('registration', 'authentication')),
  binding_digest bytea not null,
  user_id integer references users (id) on delete cascade,
  expires_at timestamptz not null
);
create index webauthn_challenges_expires_idx on webauthn_challenges (expires_at);

-- The WebAuthn user handle of a member (user.id in the credential options):
-- 32 random bytes, base64url, made at the first registration. It tells an
-- authenticator which passkeys belong to one account and carries nothing
-- personal (WebAuthn §14.6.1), unlike the row id or the email.
create table webauthn_user_handles (
  user_id integer primary key references users (id) on delete cascade,
  handle text not null unique
);
