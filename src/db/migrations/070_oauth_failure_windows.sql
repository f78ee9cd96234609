-- The token, revocation, introspection, PAR and device-authorization endpoints' limiter of failed
-- requests (oauth/failure-limiter.ts) counts in the database, so that every instance counts the same
-- failures (SPEC §3: rate-limit counters are shared state). One row per key (an address, a client, a
-- public client from an address) while its minute lasts; the scheduled purge deletes ended windows.
create table oauth_failure_windows (
  key text primary key,
  failures integer not null,
  resets_at timestamptz not null
);
create index oauth_failure_windows_resets_at_idx on oauth_failure_windows (resets_at);
