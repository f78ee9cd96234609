-- Client authentication with a signed JWT (RFC 7523 §2.2, OpenID Connect Core
-- 1.0 §9 private_key_jwt; docs/oauth.md, "Client authentication with a key").
-- token_endpoint_auth_method (RFC 7591 §2) names the client's method family:
-- a client registered for a secret method may use either of client_secret_basic
-- and client_secret_post, as before; 'none' is a public client. A
-- private_key_jwt client has no secret and registers its public keys inline
-- (jwks) or by URL (jwks_uri), never both.
alter table oauth_clients
  add column token_endpoint_auth_method text not null default 'client_secret_basic'
    check (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none')),
  add column jwks jsonb,
  add column jwks_uri text;
update oauth_clients set token_endpoint_auth_method = 'none' where not confidential;
-- Migration 010's rule (a secret exactly for confidential clients) becomes: a
-- secret exactly for the secret methods.
alter table oauth_clients drop constraint oauth_clients_check;
alter table oauth_clients
  add constraint oauth_clients_auth_method_check check (
    (token_endpoint_auth_method = 'none') = (not confidential)
    and (token_endpoint_auth_method in ('client_secret_basic', 'client_secret_post')) = (secret_digest is not null)
    and (token_endpoint_auth_method <> 'private_key_jwt' or (jwks is null) <> (jwks_uri is null))
  );

-- RFC 7523 §3 item 7: a client assertion's jti is used once. Its digest is
-- kept until the assertion expires (shared by every instance), then purged.
create table oauth_client_assertions (
  jti_digest bytea primary key,
  expires_at timestamptz not null
);
create index oauth_client_assertions_expires_idx on oauth_client_assertions (expires_at);
