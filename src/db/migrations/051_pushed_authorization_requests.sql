-- Pushed Authorization Requests (RFC 9126). A client pushes its authorization
-- request's parameters to /oauth/par and gets a request_uri back; only the
-- SHA-256 digest of its random part is stored. At /oauth/authorize the row is
-- deleted as it is read (one statement, only unexpired and only for the client
-- it was pushed by). The same table holds the continuations: the parameters of
-- a consumed request, re-stored under a new one-time reference so that the
-- member can log in and consent (docs/oauth.md, "Pushed authorization requests").
create table oauth_pushed_requests (
  reference_digest bytea primary key,
  client_id integer not null references oauth_clients (id) on delete cascade,
  parameters jsonb not null,
  expires_at timestamptz not null
);
create index oauth_pushed_requests_expires_idx on oauth_pushed_requests (expires_at);

-- RFC 9126 §6 (RFC 7591 client metadata name): this client's authorization
-- requests are accepted only as pushed ones.
alter table oauth_clients add column require_pushed_authorization_requests boolean not null default false;
