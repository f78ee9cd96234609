-- State of the feature toggles defined in code (src/api/feature-toggles);
-- a toggle without a row has its default state.
create table feature_toggles (
  identifier text primary key check (identifier ~ '^[a-zA-Z]+$'),
  is_active boolean not null,
  updated_at timestamptz not null default now(),
  updated_by integer references users (id) on delete set null
);
