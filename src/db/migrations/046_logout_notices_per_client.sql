-- Logout notices are claimed per client (a few of each client at a time, so
-- that one client's hanging receiver cannot hold back the others' notices):
-- the claim groups the due notices by client and takes each client's oldest.
create index oauth_logout_notices_client_due_idx on oauth_logout_notices (client_id, next_attempt_at, id) where state = 'pending';
