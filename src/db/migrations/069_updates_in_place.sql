-- The two updates of the token endpoint's hot paths become heap-only tuple updates: a new row
-- version on the same page and no index entry at all, where each wrote an entry into every index
-- of its table (docs/performance.md, change 29).
--
-- Redeeming a code sets its used_at and grant_id. With grant_id indexed, every redemption wrote
-- into each of the table's four indexes and checked the grant's foreign key. The grant of a used
-- code is only ever looked up from the code (reuse detection, by its digest), and grant ids are
-- never reused: a code naming a grant deleted since finds none (oauth/grants/codes.repository.ts),
-- as the foreign key's `on delete set null` made it.
alter table oauth_codes drop constraint oauth_codes_grant_id_fkey;
drop index oauth_codes_grant_idx;
-- Room on each page for the updated version of its rows.
alter table oauth_codes set (fillfactor = 70);
-- Rotating a refresh token sets its rotated_at and successor_id, neither of them indexed.
alter table oauth_refresh_tokens set (fillfactor = 70);
