-- The audit log (/admin/audit, `audit list`): every security event
-- (docs/security-events.md) as it is logged, ids only, never a secret.
-- user_id has no foreign key on purpose: the record of who did what outlives
-- a deleted account, and AUDIT_RETENTION_DAYS (default 90) bounds how long
-- it is kept (the scheduled purge deletes older rows in batches).
create table security_events (
  id bigint generated always as identity primary key,
  occurred_at timestamptz not null,
  event text not null,
  level text not null check (level in ('info', 'warn')),
  user_id integer,
  client_id text,
  ip text,
  details jsonb not null default '{}'
);
create index security_events_occurred_at on security_events (occurred_at, id);
create index security_events_user on security_events (user_id, occurred_at) where user_id is not null;
create index security_events_client on security_events (client_id, occurred_at) where client_id is not null;
