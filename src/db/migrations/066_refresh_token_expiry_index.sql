-- The scheduled purge deletes refresh-token rows past their expiry
-- (ops/refresh-token-purge.ts): found through this index, a batch at a time.
create index oauth_refresh_tokens_expires_idx on oauth_refresh_tokens (expires_at);
