-- OpenID Connect logout (RP-Initiated Logout 1.0, Back-Channel Logout 1.0):
-- each login session gets a public id `sid` (put in ID tokens), the session
-- remembers which clients it signed into, codes and grants remember the
-- session they came from, and clients register where to send members after
-- logout and where to deliver logout tokens.

-- 256 random bits, base64url without padding (43 characters), like the
-- application's own tokens; existing sessions get one each.
alter table sessions add column sid text not null default rtrim(translate(encode(decode(
  replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/', '-_'), '=');
alter table sessions add constraint sessions_sid_key unique (sid);

-- The clients a session signed into: recorded when a code is issued under it.
create table oauth_session_clients (
  sid text not null references sessions (sid) on delete cascade,
  client_id integer not null references oauth_clients (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (sid, client_id)
);
create index oauth_session_clients_client_idx on oauth_session_clients (client_id);
create index oauth_session_clients_user_idx on oauth_session_clients (user_id);

-- The session a code or grant came from (null: issued before sessions had ids).
alter table oauth_codes add column sid text;
alter table oauth_grants add column sid text;
create index oauth_grants_sid_idx on oauth_grants (sid);

alter table oauth_clients
  add column post_logout_redirect_uris text[] not null default '{}',
  add column backchannel_logout_uri text,
  add column backchannel_logout_session_required boolean not null default false;
