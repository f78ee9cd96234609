-- Signing algorithms (docs/oauth.md, "Signing algorithms"): every signing key
-- belongs to one JWS algorithm — RS256, ES256 (P-256) or EdDSA (Ed25519) — and
-- each algorithm has one active key; the server generates the missing ones on
-- its next start (src/oauth/keys/signing-keys.ts). Keys stored before this
-- migration are RSA keys. Migration 048's trigger announces these changes too
-- (it fires per statement, whatever the columns).
alter table oauth_signing_keys
  add column alg text not null default 'RS256' check (alg in ('RS256', 'ES256', 'EdDSA'));

-- At most one active key per algorithm, so that instances generating the first
-- ES256 and EdDSA keys at the same time keep one (the other insert does nothing).
-- An older race could have left two active RSA keys: all but the newest retire,
-- published as long as any retired key (70 minutes).
update oauth_signing_keys set retired_at = now(), not_after = now() + interval '70 minutes'
  where retired_at is null
    and kid <> (select kid from oauth_signing_keys where retired_at is null order by activated_at desc, kid limit 1);
create unique index oauth_signing_keys_active_alg_idx on oauth_signing_keys (alg) where retired_at is null;

-- The algorithm of the client's ID tokens and JWT access tokens (OpenID Connect
-- Registration 1.0 §2, `id_token_signed_response_alg`; RS256 by default).
alter table oauth_clients
  add column id_token_signed_response_alg text not null default 'RS256'
    check (id_token_signed_response_alg in ('RS256', 'ES256', 'EdDSA'));
