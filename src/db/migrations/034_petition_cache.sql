-- Last good petition status per source URL, shared by every instance
-- (SPEC-API GET /api/petition: cached 10 minutes, stale data on failure).
create table petition_cache (
  source_url text primary key,
  href text,
  signatures integer,
  days_left integer,
  fetched_at timestamptz,
  last_attempt_at timestamptz not null
);
