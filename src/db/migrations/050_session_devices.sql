-- What a member sees of each of their sessions at /settings/security: when it
-- began (created_at) and was last used (updated at most every five minutes), the browser
-- it runs in (the User-Agent as sent, cut to 512 characters) and the network
-- it came from: the client address shortened to its IPv4 /24 or IPv6 /48,
-- enough to tell home from elsewhere, not to locate anyone. Sessions from
-- before this migration show the time of the migration and no browser.
alter table sessions add column last_seen_at timestamptz not null default now();
alter table sessions add column user_agent text;
alter table sessions add column network text;
