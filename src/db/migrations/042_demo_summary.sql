-- What the demo loader created, with every id, as `demo --json` prints it: so
-- that the command can show the existing demo's ids once it is loaded (by the
-- server's first start or by the CLI) instead of refusing. Demo data only: its
-- passwords are published.
create table demo_summary (
  singleton boolean primary key default true check (singleton),
  summary jsonb not null,
  loaded_at timestamptz not null default now()
);
