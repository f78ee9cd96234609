-- Sender-constrained tokens (RFC 9449, DPoP; docs/oauth.md, "DPoP").
-- dpop_bound_access_tokens (§5.2): the client's token requests must carry a
-- DPoP proof; without it a proof is optional and binds what it is sent with.
alter table oauth_clients add column dpop_bound_access_tokens boolean not null default false;

-- §10: dpop_jkt of the authorization request binds the code to that key: the
-- code is redeemed only with a proof signed by it.
alter table oauth_codes add column dpop_jkt text;

-- §5: the refresh tokens of a public client that presented a proof at the code
-- exchange are bound to that key (its JWK SHA-256 thumbprint, RFC 7638).
alter table oauth_grants add column dpop_jkt text;

-- §11.1: a proof's jti is used once. Its digest is kept until the proof could
-- no longer be accepted (shared by every instance), then purged.
create table oauth_dpop_proofs (
  jti_digest bytea primary key,
  expires_at timestamptz not null
);
create index oauth_dpop_proofs_expires_idx on oauth_dpop_proofs (expires_at);
